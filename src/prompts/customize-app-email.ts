import { z } from 'zod';
import { definePrompt } from './define.js';

export const customizeAppEmailPrompt = definePrompt({
  name: 'customize_app_email',
  title: 'Customize App Email',
  description: "Make one of the app's built-in emails its own, check which version is sent, and change it.",
  args: {
    app_id: z.string().describe('The app.'),
    email_type: z.string().optional().describe('password_reset, email_verification, user_invite or access_approved.'),
  },
  tools: ['preview_app_email', 'customize_app_email', 'send_app_chat_message'],
  message: ({ email_type }, app) =>
    [
      `Customize the ${email_type ?? 'application'} email of ${app}${email_type ? '' : ' (ask me which one: password_reset, email_verification, user_invite or access_approved)'}.`,
      '1. Call preview_app_email to see which version is sent now.',
      '2. Call customize_app_email to give the app its own editable copy (it needs a paid plan; repeating is harmless).',
      '3. Ask me what to change. Edits are made by the app\'s AI: send my request with send_app_chat_message. It uses credits, so it answers first with a warning: show it to me and confirm only after my yes.',
      '4. Call preview_app_email again and show me the result.',
    ].join('\n'),
});
