export interface ReadFixture {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  method: 'GET';
  path: string;
  answer: unknown;
}

export function suggestionsAnswer(): Array<Record<string, unknown>>;
export function completedJobAnswer(): Record<string, unknown>;
export function analyticsAnswer(): Record<string, unknown>;
export function campaignListAnswer(): Array<Record<string, unknown>>;
export function socialPostsAnswer(): Array<Record<string, unknown>>;
export function conversationAnswer(): Array<Record<string, unknown>>;
export const READ_FIXTURES: ReadFixture[];
