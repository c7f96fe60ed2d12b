/** The contract between the sandbox's HTTP layer and the simulation behind it. */

export interface SimRequest {
  method: string;
  /** Decoded path without the query string, split on raw `/` before decoding. */
  segments: string[];
  /** The path exactly as received, to check encoding. */
  rawPath: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  /** Parsed JSON body, the raw text when it is not JSON, or undefined when empty. */
  body: unknown;
}

export interface SimResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RecordedRequest {
  method: string;
  rawPath: string;
  /** The query string without `?`, empty when there is none. */
  query: string;
  headers: Record<string, string>;
  body: unknown;
  /** Sandbox clock time when the request arrived (ms since epoch). */
  at: number;
}

/** A canned answer for tests and demos, used before the simulation is consulted. */
export interface ScriptedResponse extends SimResponse {
  /** Only requests with this method (e.g. 'POST') take it. */
  method?: string;
  /** Only requests whose raw path matches take it. */
  path?: string | RegExp;
  /** How many requests it answers (default 1). */
  times?: number;
  /** Destroy the connection instead of answering (a dropped connection). */
  drop?: boolean;
  /** Never answer until the sandbox closes or `release()` is called (a hung upstream). */
  hang?: boolean;
}
