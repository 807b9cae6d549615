/**
 * The JSON API of `mnemo serve`, over the app backend (the same methods the Electron shell's IPC
 * handlers call). The routes the issue fixes, kept exactly:
 *
 *   GET  /api/sessions                   what `mnemo sessions --json` prints
 *   GET  /api/sessions/<id>              what `mnemo show <id> --json` prints, files as URL paths
 *   POST /api/runs {"task"}              starts a run with the saved settings: {"id"}; 409 while one runs
 *   POST /api/runs/<id>/pause|resume|stop, /answer {"text"}
 *   GET  /api/events?since=<seq>         server-sent events (event-stream.ts)
 *
 * and what the window needs besides: GET /api/runs/current, POST /api/replays,
 * GET /api/sessions/<id>/events?since=, GET /api/sessions/<id>/files/<path>[?thumb=W],
 * GET /api/sessions/<id>/report.html, DELETE /api/sessions/<id>, GET|PUT /api/settings,
 * POST /api/provider/check, GET /api/doctor, GET /api/version; and the Memory view's long-lived
 * memory:
 *
 *   GET    /api/facts?subject=&scope=           the facts (`mnemo facts list --json`), with their history
 *   GET    /api/facts/search?q=&subject=&scope=&limit=   ranked, best first, each with its score
 *   POST   /api/facts {subject, scope, keyword, description, values, multiple?}   saves (or edits) one
 *   DELETE /api/facts/<id>                      forgets it and its history
 *   GET    /api/memory/conversations            the conversations that have a working memory
 *   GET    /api/memory/working?conversation=<id>   one's working memory, or null
 */
import type { z } from 'zod';
import { AnswerSchema, CheckProviderSchema, FactQuerySchema, FactSearchSchema, SaveFactSchema, SaveSettingsSchema, StartReplaySchema, StartRunSchema } from '../../shared/app-api';
import { describeConfigIssues } from '../../shared/config';
import type { AppBackend } from '../service/app-backend';
import type { ServiceError, ServiceResult } from '../service/run-service';
import { SessionFiles } from '../service/session-files';
import { shownSession } from '../service/session-views';
import { SESSION_ID_PATTERN } from '../store/paths';
import { failure, json, type Reply } from './http-io';

export interface ApiRequest {
  method: string;
  /** The path after `/api`, decoded: `/sessions/<id>`. */
  path: string;
  query: URLSearchParams;
  body: () => Promise<{ ok: true; value: unknown } | { ok: false; message: string }>;
}

const STATUS: Record<ServiceError['kind'], number> = { settings: 400, busy: 409, not_found: 404, no_display: 503, record: 500, memory: 503 };

function answer<T>(result: ServiceResult<T>): Reply {
  if (result.ok) return json(200, result.value);
  const { error } = result;
  return failure(STATUS[error.kind], error.message, { kind: error.kind, ...(error.sessionId ? { id: error.sessionId } : {}) });
}

type Checked<T extends z.ZodType> = { ok: true; value: z.output<T> } | { ok: false; reply: Reply };

/** A request's body or query as `schema` takes it, or the 400 that names what is wrong. */
function validated<T extends z.ZodType>(value: unknown, schema: T): Checked<T> {
  const result = schema.safeParse(value);
  if (!result.success) return { ok: false, reply: failure(400, describeConfigIssues(result.error.issues)) };
  return { ok: true, value: result.data };
}

async function parsed<T extends z.ZodType>(request: ApiRequest, schema: T): Promise<Checked<T>> {
  const body = await request.body();
  if (!body.ok) return { ok: false, reply: failure(400, body.message) };
  return validated(body.value, schema);
}

/** The query parameters `names` that are present, as an object. */
function queryOf(query: URLSearchParams, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((name) => (query.has(name) ? [[name, query.get(name) as string]] : [])));
}

/** The URL path a session's file is served at. */
export function fileUrl(sessionId: string, relative: string): string {
  return `/api/sessions/${encodeURIComponent(sessionId)}/files/${relative.split('/').map(encodeURIComponent).join('/')}`;
}

export class MnemoApiRoutes {
  private readonly files: SessionFiles;

  constructor(private readonly backend: AppBackend) {
    this.files = new SessionFiles(backend.service);
  }

  async handle(request: ApiRequest): Promise<Reply> {
    const { method, path } = request;
    const [head, id, action, ...rest] = path.split('/').filter(Boolean);
    const route = `${method} ${head ?? ''}`;
    if (route === 'GET version' && id === undefined) return json(200, { version: '0.1.0', platform: process.platform });
    if (head === 'runs') return this.runs(request, id, action);
    if (route === 'POST replays' && id === undefined) {
      const body = await parsed(request, StartReplaySchema);
      return body.ok ? answer(await this.backend.startReplay(body.value)) : body.reply;
    }
    if (head === 'sessions') return this.sessions(request, id, action, rest);
    if (route === 'GET settings' && id === undefined) return json(200, this.backend.settings());
    if (route === 'PUT settings' && id === undefined) {
      const body = await parsed(request, SaveSettingsSchema);
      return body.ok ? answer(await this.backend.saveSettings(body.value)) : body.reply;
    }
    if (route === 'GET doctor' && id === undefined) return json(200, await this.backend.doctor());
    if (head === 'facts' && action === undefined) return this.facts(request, id);
    if (route === 'GET memory' && action === undefined) return this.memory(request, id);
    if (route === 'POST provider' && id === 'check') {
      const body = await parsed(request, CheckProviderSchema);
      return body.ok ? answer(await this.backend.checkProvider(body.value.model ?? {}, body.value.apiKey)) : body.reply;
    }
    return failure(404, `no route ${method} /api${path}`);
  }

  private async facts(request: ApiRequest, id: string | undefined): Promise<Reply> {
    const { method, query } = request;
    if (id === undefined && method === 'GET') {
      const filter = validated(queryOf(query, ['subject', 'scope']), FactQuerySchema);
      return filter.ok ? answer(await this.backend.facts(filter.value)) : filter.reply;
    }
    if (id === undefined && method === 'POST') {
      const body = await parsed(request, SaveFactSchema);
      return body.ok ? answer(await this.backend.saveFact(body.value)) : body.reply;
    }
    if (id === 'search' && method === 'GET') {
      const { q, limit, ...filter } = queryOf(query, ['q', 'subject', 'scope', 'limit']);
      const search = validated({ ...filter, text: q ?? '', ...(limit !== undefined ? { limit: Number(limit) } : {}) }, FactSearchSchema);
      return search.ok ? answer(await this.backend.searchFacts(search.value)) : search.reply;
    }
    if (id !== undefined && method === 'DELETE') return answer(await this.backend.forgetFact(id));
    return failure(404, `no route ${method} /api/facts${id ? `/${id}` : ''}`);
  }

  private async memory(request: ApiRequest, part: string | undefined): Promise<Reply> {
    if (part === 'conversations') return answer(await this.backend.conversations());
    if (part === 'working') {
      const conversation = request.query.get('conversation');
      if (!conversation) return failure(400, 'name the conversation: /api/memory/working?conversation=<id>');
      return answer(await this.backend.workingMemory(conversation));
    }
    return failure(404, `no route GET /api/memory${part ? `/${part}` : ''}`);
  }

  private async runs(request: ApiRequest, id: string | undefined, action: string | undefined): Promise<Reply> {
    const { method } = request;
    if (id === undefined && method === 'POST') {
      const body = await parsed(request, StartRunSchema);
      return body.ok ? answer(await this.backend.startRun(body.value)) : body.reply;
    }
    if (id === 'current' && action === undefined && method === 'GET') return json(200, this.backend.currentRun());
    if (id !== undefined && method === 'POST') {
      if (action === 'pause' || action === 'resume' || action === 'stop') return answer(this.backend.control(id, action));
      if (action === 'answer') {
        const body = await parsed(request, AnswerSchema);
        if (!body.ok) return body.reply;
        const result = this.backend.answer(id, body.value.text, body.value.questionId);
        // A run that waits for no answer: the request conflicts with the run's state.
        return !result.ok && this.backend.service.run(id) ? failure(409, result.error.message) : answer(result);
      }
    }
    return failure(404, `no route ${method} /api/runs${id ? `/${id}` : ''}${action ? `/${action}` : ''}`);
  }

  private async sessions(request: ApiRequest, id: string | undefined, action: string | undefined, rest: string[]): Promise<Reply> {
    const { method, query } = request;
    if (id === undefined) {
      if (method !== 'GET') return failure(404, `no route ${method} /api/sessions`);
      return json(200, await this.backend.sessions({ search: query.get('search') ?? undefined, status: query.get('status') ?? undefined }));
    }
    if (!SESSION_ID_PATTERN.test(id)) return failure(400, `"${id}" is not a session id`);
    const service = this.backend.service;
    if (action === undefined && method === 'DELETE') return answer(await service.deleteSession(id));
    if (method !== 'GET') return failure(404, `no route ${method} /api/sessions/${id}${action ? `/${action}` : ''}`);
    switch (action) {
      case undefined: {
        const read = await service.session(id);
        if (!read.ok) return answer(read);
        const shown = shownSession(read.value);
        const toUrl = (absolute: string | null) => (absolute === null ? null : fileUrl(read.value.meta.id, absolute.slice(read.value.directory.length + 1).split('\\').join('/')));
        return json(200, { ...shown, steps: shown.steps.map((step) => ({ ...step, screenshot: toUrl(step.screenshot), reply: toUrl(step.reply), fullResolution: toUrl(step.fullResolution) })) });
      }
      case 'events': {
        const since = Number(query.get('since') ?? '0');
        if (!Number.isInteger(since) || since < 0) return failure(400, 'since must be a whole number ≥ 0');
        return answer(await this.backend.events(id, since));
      }
      case 'memory':
        return answer(await service.memory(id));
      case 'report.html': {
        const report = await this.backend.report(id);
        if (!report.ok) return answer(report);
        return { status: 200, body: report.value.html, contentType: 'text/html; charset=utf-8', headers: { 'content-disposition': `attachment; filename="mnemo-${report.value.sessionId}.html"` } };
      }
      case 'files':
        return this.file(id, rest, query);
      default:
        return failure(404, `no route GET /api/sessions/${id}/${action}`);
    }
  }

  /** A file of a session folder (a screenshot, a raw reply); `?thumb=W` a JPEG W pixels wide. */
  private async file(id: string, parts: string[], query: URLSearchParams): Promise<Reply> {
    const file = await this.files.read(id, parts, Number(query.get('thumb') ?? '0'));
    if (!file.ok) return answer(file);
    return { status: 200, body: file.value.data, contentType: file.value.contentType, headers: { 'cache-control': 'private, max-age=86400' } };
  }
}
