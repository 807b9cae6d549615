/**
 * The memory's own model calls, as types: plain chat completions, with function tools when the
 * memory manager must answer with a call (`append_to_short_term_memory`, `rewrite_memory`), so
 * memory work can use a second, cheaper model with its own settings. Every failure is a value.
 * The models themselves are made in text-model-factory.ts.
 */
import type { ClientSettings, ModelClient, ModelClientDeps } from '../model/client';
import type { ModelError, Usage } from '../model/types';
import type { PriceTable } from '../../shared/settings';

export interface TextMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A function the model may call; `parameters` is a JSON schema. */
export interface TextTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface TextRequest {
  system?: string | undefined;
  messages: TextMessage[];
  tools?: TextTool[] | undefined;
  /** `auto` (default with tools), `required`, or one function by name. */
  toolChoice?: 'auto' | 'required' | { name: string } | undefined;
}

export interface TextToolCall {
  id: string;
  name: string;
  /** As the model wrote it (may be malformed JSON). */
  arguments: string;
}

export type TextReply =
  | { ok: true; text: string | null; toolCalls: TextToolCall[]; usage: Usage; attempts: number }
  | { ok: false; error: ModelError; attempts: number };

export interface TextModel {
  /** The model name sent to the endpoint. */
  readonly model: string;
  complete(request: TextRequest, signal?: AbortSignal): Promise<TextReply>;
}

/**
 * The endpoint and model for memory work; a parsed `ModelSettings` fits. Its family only matters
 * for `anthropic` and `gemini`, spoken through their vendors' APIs; every other family is asked
 * through chat completions.
 */
export type TextModelSettings = ClientSettings & {
  model: string;
  family?: string | undefined;
  temperature?: number | undefined;
  maxOutputTokens?: number | undefined;
};

export interface TextModelDeps extends ModelClientDeps {
  /** A client to use instead of one built from the settings. */
  client?: ModelClient;
  /** Default: DEFAULT_PRICES. */
  prices?: PriceTable;
}
