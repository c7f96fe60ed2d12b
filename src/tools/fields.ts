import { z } from 'zod';

/** Input fields shared by several tools. */

/**
 * A string of `min` to `max` characters. The bound is checked here but stays out of the JSON
 * schema: a model gains nothing from it, it costs tokens on every tool, and strict-mode converters
 * (Anthropic's among them) reject length keywords.
 */
export const text = (max: number, min = 1) =>
  z.string().refine((value) => value.length >= min && value.length <= max, {
    message: min > 0 ? `must be ${min} to ${max} characters` : `must be at most ${max} characters`,
  });

/**
 * A whole number from `min` to `max`. As with `text`, the bounds are checked here but stay out of the
 * JSON schema (a type of "integer" alone; zod would otherwise add bounds, or the safe-integer range).
 */
export const whole = (min: number, max: number) =>
  z
    .number()
    .refine((value) => Number.isInteger(value) && value >= min && value <= max, { message: `must be a whole number from ${min} to ${max}` })
    .meta({ type: 'integer' });

/** An ID used as a path segment: non-empty, bounded, never a dot segment. */
const segment = () => text(200).refine((value) => !/^(\.|%2e){1,2}$/i.test(value), { message: 'must be an ID, not "." or ".."' });

export const id = (description: string) => segment().describe(description);

/** No description: "app_id" says it all, and it is on nearly every tool (tokens on every tools/list). */
export const appId = segment();

/** Added by the server to every costly tool; never sent to the API. */
export const confirm = z
  .boolean()
  .optional()
  .describe('true only after the user agreed to the warning.');
