import { z } from 'zod';

/** Input fields shared by several tools. */

/** An ID used as a path segment: non-empty, bounded, never a dot segment. */
export const id = (description: string) =>
  z
    .string()
    .min(1)
    .max(200)
    .refine((value) => !/^(\.|%2e){1,2}$/i.test(value), { message: 'must be an ID, not "." or ".."' })
    .describe(description);

export const appId = id('ID of the app.');

/** Added by the server to every costly tool; never sent to the API. */
export const confirm = z
  .boolean()
  .optional()
  .describe('Omit at first (a cost warning, nothing sent). true on the second call, same arguments, once the user agreed.');
