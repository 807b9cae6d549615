/**
 * A question, a confirmation or a safety check waiting for the user, answered inline: a question
 * with its text (Answer, Send), the others with Allow ("yes") or Deny ("no").
 */
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { actionSentence } from '../../../../shared/describe-action';
import { useServices, useSession } from '../../app-context';
import { NAMES } from '../../i18n/names';

export function QuestionDialog() {
  const { t } = useTranslation();
  const { session } = useServices();
  const question = useSession((s) => s.session?.run.pendingQuestion ?? null);
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const titleId = useId();
  if (!question) return null;

  const reply = async (answer: string) => {
    setSending(true);
    await session.getState().answer(answer);
    setSending(false);
    setText('');
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void reply(text);
  };
  const title = question.kind === 'question' ? t('question.title') : t(`question.${question.kind}`);
  return (
    <div role="dialog" aria-labelledby={titleId} className={`question-dialog question-${question.kind}`}>
      <h2 id={titleId}>{title}</h2>
      <p className="question-text">{question.question}</p>
      {question.action && <p className="question-action">{actionSentence(question.action)}</p>}
      {question.kind === 'question' ? (
        <form onSubmit={submit} className="answer-form">
          <input type="text" aria-label={NAMES.answer} placeholder={t('question.answerPlaceholder')} value={text} onChange={(event) => setText(event.target.value)} autoFocus />
          <button type="submit" className="primary" aria-label={NAMES.send} disabled={sending || !text.trim()}>
            {t('send')}
          </button>
        </form>
      ) : (
        <div className="dialog-buttons">
          <button type="button" className="primary" aria-label={NAMES.allow} disabled={sending} onClick={() => void reply('yes')}>
            {t('allow')}
          </button>
          <button type="button" className="danger" aria-label={NAMES.deny} disabled={sending} onClick={() => void reply('no')}>
            {t('deny')}
          </button>
        </div>
      )}
    </div>
  );
}
