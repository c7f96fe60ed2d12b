import { z } from 'zod';
import { BUILTIN_EMAILS, EMAIL_TYPES } from './builtin-emails.js';

/** Zod schemas of an app's email templates in the sandbox world. */

const DAY_MS = 86_400_000;

export const EmailTypeSchema = z.enum(EMAIL_TYPES);

/**
 * One template file of the app. With `email_type` it is the app's own version of that application
 * email (name, subject and HTML default to a copy of the built-in one, as customization makes it);
 * without, it is an ordinary template that workflows and backend functions send by name.
 */
export const EmailTemplateSchema = z
  .strictObject({
    template_id: z.string().min(1),
    email_type: EmailTypeSchema.optional(),
    name: z.string().min(1).optional(),
    subject: z.string().optional(),
    html: z.string().optional(),
    /** Last change, in ms from the moment the world starts (negative: before it). */
    updated_offset_ms: z.number().int().default(-3 * DAY_MS),
  })
  .superRefine((template, ctx) => {
    if (!template.email_type && !template.name) {
      ctx.addIssue({ code: 'custom', path: ['name'], message: 'a template without email_type needs a name' });
    }
  })
  .transform(({ email_type, name, subject, html, ...rest }) => {
    const builtin = email_type ? BUILTIN_EMAILS[email_type] : undefined;
    return {
      ...rest,
      ...(email_type ? { email_type } : {}),
      name: name ?? builtin?.name ?? rest.template_id,
      subject: subject ?? builtin?.subject ?? '',
      html: html ?? builtin?.html ?? '',
    };
  });

export type EmailTemplate = z.output<typeof EmailTemplateSchema>;
