// The social calendar's data: what one list_social_posts result and the model's arguments say, read
// into a Calendar (the posts listed, the filters and range every later call keeps, the week shown,
// and each week loaded since). Values from the result are checked for their type here, so the other
// modules of the view work with plain strings, numbers and posts.
import { factsOf, viewOf, type ToolResultLike, type View } from '../shared/app.js';
import { dayStart, weekOf } from './weeks.js';

export interface Post {
  id: string;
  platform: string;
  /** Epoch ms, NaN when the service gave no valid time. */
  at: number;
  scheduledAt: string;
  local?: string;
  zone?: string;
  status: string;
  title: string;
  caption: string;
}

/** One week's posts as list_social_posts gave them, when the view asks the server for each week. */
export interface WeekLoad {
  posts: Post[];
  /** The skip of the next call; undefined once every matching post of the week is here. */
  skip?: number;
  loading: boolean;
  error?: string;
}

export interface Calendar {
  view: View;
  facts: Record<string, unknown>;
  appId?: string;
  /** The call's arguments are known (view data or tool input): other weeks can be asked for with the same filters. */
  asked: boolean;
  /** The model's status and platform filters, kept for every week asked for. */
  filters: Record<string, string>;
  /** The model's from/until, as epoch ms. */
  from?: number;
  until?: number;
  /** The start of today in the person's zone. */
  today: number;
  /** The posts the result lists. */
  listed: Post[];
  /** The result lists every matching post: weeks are cut from it and no call is needed. */
  complete: boolean;
  weeks: Map<number, WeekLoad>;
  /** The start of the Monday shown, in the person's zone. */
  week: number;
}

export const text = (value: unknown): string => (typeof value === 'string' ? value : '');
export const records = (value: unknown): Array<Record<string, unknown>> => (Array.isArray(value) ? value.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null) : []);
export const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** An ISO 8601 date or instant as list_social_posts reads it: without an offset, UTC. */
export function instantOf(value: unknown): number | undefined {
  const raw = text(value).trim();
  if (!raw) return undefined;
  const ms = Date.parse(raw.length > 10 && !/(Z|[+-]\d{2}:\d{2})$/i.test(raw) ? `${raw}Z` : raw);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The posts of one list_social_posts result, each with the caption its view data gives. */
export function postsOf(result: ToolResultLike): Post[] {
  const shown = records(viewOf(result).posts);
  return records(factsOf(result).posts).map((row, index) => {
    const id = text(row.id);
    const extra = shown[index];
    return {
      id,
      platform: text(row.platform),
      at: Date.parse(text(row.scheduled_at)),
      scheduledAt: text(row.scheduled_at),
      local: text(row.scheduled_local_at) || undefined,
      zone: text(row.scheduled_timezone) || undefined,
      status: text(row.status),
      title: text(row.title),
      // The view data lists the same posts in the same order; the id check guards against a mismatch.
      caption: extra && text(extra.id) === id ? text(extra.caption) : '',
    };
  });
}

export function calendarOf(result: ToolResultLike, view: View): Calendar {
  const given = view.toolArguments();
  const args = given ?? {};
  const facts = factsOf(result);
  const listed = postsOf(result);
  const filters: Record<string, string> = {};
  for (const key of ['status', 'platform']) if (text(args[key])) filters[key] = text(args[key]);
  const from = instantOf(args.from);
  const until = instantOf(args.until);
  const today = dayStart(Date.now());
  const skip = count(args.skip) ?? 0;
  const inRange = (ms: number) => (from === undefined || ms >= from) && (until === undefined || ms < until);
  // Today's week, unless the listing covers another stretch of time: then where it starts.
  const firstTimed = listed.find((post) => Number.isFinite(post.at))?.at;
  const opening = inRange(Date.now()) ? today : (from ?? firstTimed ?? today);
  return {
    view,
    facts,
    appId: text(args.app_id) || undefined,
    asked: given !== undefined,
    filters,
    from,
    until,
    today,
    listed,
    complete: skip === 0 && count(facts.next_skip) === undefined,
    weeks: new Map(),
    week: weekOf(opening),
  };
}
