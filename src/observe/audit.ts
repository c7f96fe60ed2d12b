import { nodeCrypto } from '../node-crypto.js';
import { ApiError, CancelledError, InputError, RefusedError, reasonOf } from '../errors.js';
import type { Log } from '../log.js';
import { sanitize } from '../text.js';
import {
  AUDIT_VERSION,
  AuditLineSchema,
  auditUser,
  cleanText,
  MAX_COST_CHARS,
  MAX_HTTP_CHARS,
  MAX_ID_CHARS,
  MAX_SUMMARY_CHARS,
  OVER_LIMITS,
  requestDigest,
  type AuditLine,
  type RefusalReason,
} from './audit-line.js';
import type { AuditSink } from './audit-sinks.js';
import { requestLine, sentDigest, whileSending, type OutgoingRequest } from './sending.js';

export * from './audit-line.js';
export * from './audit-sinks.js';

/**
 * The audit trail of gated calls (issue 18): one JSON line per step of every call that spends money
 * or credits or deletes for good, written where the operator says (APPMGMT_AUDIT_LOG, else stderr),
 * so "what did the assistants spend, for whom, and did it happen?" is answered from the trail alone.
 * A line holds ids, digests, our own words and numbers: never a credential, never an argument's free
 * text (a campaign name, a chat message), and of upstream text only a trimmed, cleaned summary.
 */

/** A spend refused because its audit record could not be written: money never moves unrecorded. */
export class AuditUnwritableError extends RefusedError {
  override name = 'AuditUnwritableError';
  constructor(warningKept: boolean, options?: { cause?: unknown }) {
    const warning = warningKept
      ? 'The warning is still pending: once the trail can be written again, confirm again within its 10 minutes.'
      : 'The warning was used up: once the trail can be written again, call again without confirm for a fresh warning.';
    super(`NOT SENT: the audit record of this call could not be written (the server's audit trail, APPMGMT_AUDIT_LOG), and a spend is never made unrecorded. Nothing was sent. ${warning} Tell the server's operator.`, options);
  }
}

/** Facts of one gated tool call that every line carries. */
export interface CallFacts {
  /** The caller's gate scope (gate/key.ts gateScope): a keyed hash of the credential, never the credential. */
  scope: string;
  /** The scope the daily limits count the caller's person by, where it differs from `scope` (an OAuth grant's person). */
  person?: string | undefined;
  tool: string;
  /** The tool's arguments without `confirm`. */
  request: Record<string, unknown>;
  /** The caller's own redaction (their credentials), beside the trail's. */
  redact?: ((text: string) => string) | undefined;
}

type Optional = Partial<
  Pick<AuditLine, 'request_id' | 'cost' | 'status' | 'reason' | 'over' | 'summary' | 'sent_sha256' | 'http' | 'day' | 'unit' | 'counted' | 'used' | 'limit' | 'grant_used' | 'grant_limit'>
>;

/** What a step of the daily limits counted (gate/allowance.ts). */
export type Counting = Required<Pick<AuditLine, 'day' | 'unit' | 'counted' | 'used'>> & Pick<AuditLine, 'limit' | 'grant_used' | 'grant_limit'>;

/** The record of one gated tool call, as the gate walks through it. */
export interface CallTrail {
  /** Set once a line ends the call (answered, refused, or a declined approval). */
  readonly ended: boolean;
  /** Why the gate refuses if the step now running throws (refusalReason's fallback). */
  stage: RefusalReason;
  warned(cost: string, requestId?: string): Promise<void>;
  approvalAsked(cost: string): Promise<void>;
  approvalAnswered(approved: boolean, summary?: string): Promise<void>;
  /** @throws AuditUnwritableError (warning kept): the confirmation must not go on unrecorded. */
  confirmed(requestId?: string): Promise<void>;
  /** Runs a confirmed call's `run`; each write it sends is recorded (`sent`, durable) before it leaves, or not sent. */
  sending<T>(work: () => Promise<T>): Promise<T>;
  /** Whether a request of this call was handed to the network. */
  readonly sent: boolean;
  answered(outcome: 'success' | 'refused' | 'unknown', facts?: { status?: number | undefined; summary?: string | undefined; upstream?: string | undefined }): Promise<void>;
  /** An amount counted against a daily limit just before sending (`reserved`), or given back after a sure refusal (`released`). */
  counted(step: 'reserved' | 'released', counting: Counting): Promise<void>;
  refused(reason: RefusalReason, error?: unknown): Promise<void>;
}

export interface AuditTrail {
  call(facts: CallFacts): CallTrail;
}

export interface AuditOptions {
  sink: AuditSink;
  now: () => number;
  /** The server's own secrets. */
  redact: (text: string) => string;
  log: Log;
  newCallId?: () => string;
}

/** The trail of a server: lines of every gated call to `sink`. */
export function createAuditTrail({ sink, now, redact, log, newCallId = () => nodeCrypto().randomUUID() }: AuditOptions): AuditTrail {
  return {
    call(facts) {
      const callId = newCallId();
      const redactBoth = (value: string) => redact(facts.redact ? facts.redact(value) : value);
      // Ids, paths and our own cost lines are kept as they are (cleaned, redacted); free text is also masked.
      const clean = (text: string, max: number) => cleanText(text, max, redactBoth, false);
      const summary = (text: string) => cleanText(text, MAX_SUMMARY_CHARS, redactBoth, true);
      const base = baseOf(facts, clean);
      let ended = false;
      let sent = false;
      const line = (step: AuditLine['step'], outcome: AuditLine['outcome'], extra: Optional = {}): string =>
        `${JSON.stringify(AuditLineSchema.parse({ v: AUDIT_VERSION, time: new Date(now()).toISOString(), step, outcome, call: callId, ...base, ...extra }))}\n`;
      /** Writes a line (built here, so even a line that cannot be built is a failure to write) and resolves once it is durable. */
      const write = async (build: () => string) => sink.append(build());
      /** A line whose loss stops nothing: logged, the call goes on. */
      const bestEffort = async (build: () => string, what: string) => {
        await write(build).catch((error: unknown) => log.error(`audit: could not write the ${what} record of a ${facts.tool} call: ${errorText(error)}`));
      };
      const trail: CallTrail = {
        get ended() {
          return ended;
        },
        stage: 'not_sent',
        get sent() {
          return sent;
        },
        warned: (cost, requestId) => bestEffort(() => line('warned', 'pending', { cost: clean(cost, MAX_COST_CHARS), ...idOf(requestId, clean) }), 'warning'),
        approvalAsked: (cost) => bestEffort(() => line('approval_asked', 'pending', { cost: clean(cost, MAX_COST_CHARS) }), 'approval form'),
        async approvalAnswered(approved, said) {
          if (!approved) ended = true;
          await bestEffort(() => line('approval_answered', approved ? 'approved' : 'declined', said ? { summary: summary(said) } : {}), 'approval answer');
        },
        async confirmed(requestId) {
          await write(() => line('confirmed', 'pending', idOf(requestId, clean))).catch((error: unknown) => {
            log.error(`audit: could not write the confirmation record of a ${facts.tool} call, so it was refused: ${errorText(error)}`);
            throw new AuditUnwritableError(true, { cause: error });
          });
        },
        sending: (work) =>
          whileSending(async (request: OutgoingRequest) => {
            const build = () => {
              const http = requestLine(request);
              return line('sent', 'pending', { sent_sha256: sentDigest(http, request.json), http: clean(http, MAX_HTTP_CHARS), ...idOf(request.requestId, clean) });
            };
            await write(build).catch((error: unknown) => {
              log.error(`audit: could not write the record of a ${facts.tool} request before sending it, so it was not sent: ${errorText(error)}`);
              throw new AuditUnwritableError(false, { cause: error });
            });
            sent = true;
          }, work),
        async answered(outcome, { status, summary: ours, upstream } = {}) {
          ended = true;
          const said = [ours, upstream === undefined ? undefined : `the service said: ${upstream}`].filter(Boolean).join('; ');
          await bestEffort(() => line('answered', outcome, { ...(status ? { status } : {}), ...(said ? { summary: summary(said) } : {}) }), 'answer');
        },
        counted: (step, counting) => bestEffort(() => line(step, step === 'reserved' ? 'pending' : 'refused', counting), step === 'reserved' ? 'reservation' : 'release'),
        async refused(reason, error) {
          ended = true;
          const status = error instanceof ApiError ? error.status : undefined;
          const said = error instanceof ApiError ? reasonOf(error.body) : ownWords(error, Object.keys(facts.request));
          const over = reason === 'over_limit' ? overOf(error) : undefined;
          await bestEffort(() => line('refused', 'refused', { reason, ...(over ? { over } : {}), ...(status ? { status } : {}), ...(said ? { summary: summary(said) } : {}) }), 'refusal');
        },
      };
      return trail;
    },
  };
}

/** A trail that records nothing: servers built without one (tests, tools that never spend). */
export const noAudit: AuditTrail = {
  call() {
    let ended = false;
    let sent = false;
    return {
      get ended() {
        return ended;
      },
      stage: 'not_sent',
      get sent() {
        return sent;
      },
      warned: async () => undefined,
      approvalAsked: async () => undefined,
      approvalAnswered: async (approved) => void (ended ||= !approved),
      confirmed: async () => undefined,
      sending: (work) =>
        whileSending(async () => {
          sent = true;
        }, work),
      answered: async () => void (ended = true),
      counted: async () => undefined,
      refused: async () => void (ended = true),
    };
  },
};

/**
 * Why a call that threw was refused: the error's own kind where it names one (the store, the trail,
 * a cancellation, bad input), else what the gate was doing (`stage`).
 */
export function refusalReason(error: unknown, stage: RefusalReason): RefusalReason {
  if (error instanceof AuditUnwritableError) return 'audit_unwritable';
  const name = error instanceof Error ? error.name : '';
  // By name: the Redis store's module (and ioredis) loads only when a shared store is configured.
  if (name === 'StateStoreAmnesiaError') return 'store_amnesia';
  if (name === 'StateStoreUnavailableError') return 'store_unavailable';
  if (name === 'OverLimitError') return 'over_limit';
  if (error instanceof CancelledError) return 'cancelled';
  if (error instanceof InputError && stage !== 'local_check') return 'invalid_input';
  return stage;
}

/** The arguments that name what a call acts on, by the fields every tool uses for them. */
const ID_FIELDS = { app: 'app_id', campaign: 'campaign_id', template: 'template_id', recommendation: 'recommendation_resource_name' } as const;
/** The arguments that carry a daily budget in micros. */
const AMOUNT_FIELDS = ['daily_budget_micros', 'recommended_daily_budget_micros'] as const;

function baseOf({ scope, person, tool, request }: CallFacts, clean: (text: string, max: number) => string) {
  const ids = Object.fromEntries(
    Object.entries(ID_FIELDS).flatMap(([field, argument]) => {
      const value = request[argument];
      return typeof value === 'string' && value ? [[field, clean(value, MAX_ID_CHARS)]] : [];
    }),
  );
  const amount = AMOUNT_FIELDS.map((field) => request[field]).find((value): value is number => Number.isSafeInteger(value) && (value as number) >= 0);
  return {
    user: auditUser(scope),
    ...(person !== undefined && person !== scope ? { person: auditUser(person) } : {}),
    tool: sanitize(tool, 64),
    ...ids,
    request_sha256: requestDigest(tool, request),
    ...(amount !== undefined ? { amount_micros: amount } : {}),
  };
}

/**
 * What a refusal says in the trail: never what the arguments hold (issue 25). The server's own
 * argument checks quote a settings key or a geo target to the model; the trail names only which of
 * the call's arguments (`names`, the tool's own) they refused.
 */
function ownWords(error: unknown, names: string[]): string | undefined {
  if (error instanceof InputError) {
    const fields = error.field.split(', ');
    const refused = names.filter((name) => fields.some((field) => field === name || ['.', '[', ' '].includes(field.charAt(name.length)) && field.startsWith(name)));
    return `the server's argument checks refused ${refused.length > 0 ? refused.join(', ') : 'the arguments'}`;
  }
  if (error instanceof RefusedError && error.audit !== undefined) return error.audit;
  return error instanceof Error ? error.message : undefined;
}

/** Which daily limit an OverLimitError (gate/allowance.ts) names. */
function overOf(error: unknown): AuditLine['over'] {
  const over = (error as { over?: unknown } | undefined)?.over;
  return (OVER_LIMITS as readonly unknown[]).includes(over) ? (over as AuditLine['over']) : undefined;
}

function idOf(requestId: string | undefined, clean: (text: string, max: number) => string): Optional {
  return requestId ? { request_id: clean(requestId, MAX_ID_CHARS) } : {};
}

function errorText(error: unknown): string {
  return sanitize(error instanceof Error ? `${error.name}: ${error.message}` : String(error), 200);
}

