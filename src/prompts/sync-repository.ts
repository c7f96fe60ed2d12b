import { z } from 'zod';
import { CONFIRM_RULE, definePrompt } from './define.js';

export const syncRepository = definePrompt({
  name: 'sync_repository',
  title: 'Sync Repository',
  description: "Bring the app and its repository in step: pull, resolve conflicts with your approval, push.",
  args: { app_id: z.string().describe('The app to sync.') },
  tools: ['pull_repo_changes', 'resolve_repo_conflicts', 'read_app_conversation', 'send_app_chat_message', 'push_app_to_repo'],
  message: (_args, app) =>
    [
      `Sync ${app} with its repository.`,
      '1. Call pull_repo_changes.',
      `2. If it reports a merge conflict, call resolve_repo_conflicts; it uses credits. ${CONFIRM_RULE}`,
      '3. If the resolution needs input, call read_app_conversation, show me the question, and send my answer with send_app_chat_message (it uses credits and needs the same confirmation); then call pull_repo_changes again (free) to finish the merge, and resolve again only if it still reports a conflict.',
      '4. Call push_app_to_repo and tell me the commit it pushed.',
    ].join('\n'),
});
