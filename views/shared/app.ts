// What every view does with the extension's App class: connect to the host, follow its theme, hand
// each tool result to the view, and call tools back through the host.
import { App, applyDocumentTheme, applyHostFonts, applyHostStyleVariables, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';

export interface ToolResultLike {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** Where the server puts a result's view data (src/result.ts VIEW_META_KEY). */
const VIEW_META_KEY = 'app-management/view';

export const textOf = (result: ToolResultLike): string =>
  (result.content ?? []).map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('\n');

/** The facts the model also reads. */
export const factsOf = (result: ToolResultLike): Record<string, unknown> => result.structuredContent ?? {};

/** What the server sent for the view alone: titles, captions, the warning's lines. */
export const viewOf = (result: ToolResultLike): Record<string, unknown> => (result._meta?.[VIEW_META_KEY] as Record<string, unknown> | undefined) ?? {};

export interface View {
  /** The tool this view was opened for, once the host has said. */
  toolName(): string | undefined;
  /** That call's arguments, once the host has sent them. */
  toolArguments(): Record<string, unknown> | undefined;
  /** Calls a tool through the host; a failure to answer becomes an error result saying so. */
  call(name: string, args: Record<string, unknown>): Promise<ToolResultLike>;
}

function applyContext(context: McpUiHostContext | undefined): void {
  if (!context) return;
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
}

/** Connects a view; `onResult` gets the tool result the host hands over, and any later one. */
export async function startView(name: string, onResult: (result: ToolResultLike, view: View) => void): Promise<View> {
  const app = new App({ name: `app-management-${name}`, version: '1.0.0' }, {});
  let args: Record<string, unknown> | undefined;
  const view: View = {
    toolName: () => app.getHostContext()?.toolInfo?.tool.name,
    toolArguments: () => args,
    async call(tool, toolArgs) {
      try {
        return (await app.callServerTool({ name: tool, arguments: toolArgs })) as ToolResultLike;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return { isError: true, content: [{ type: 'text', text: `OUTCOME UNKNOWN: the host gave no answer (${reason}). Check whether it took effect before trying again.` }] };
      }
    },
  };
  app.ontoolinput = (params) => {
    args = (params.arguments ?? {}) as Record<string, unknown>;
  };
  app.ontoolresult = (result) => onResult(result as ToolResultLike, view);
  app.onhostcontextchanged = (context) => applyContext(context);
  await app.connect();
  applyContext(app.getHostContext());
  return view;
}
