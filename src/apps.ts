import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import type { ClientCapabilities, McpServer, ServerContext, Tool } from '@modelcontextprotocol/server';
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server';
import { getUiCapability, registerAppResource, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';

/**
 * MCP Apps views (the `io.modelcontextprotocol/ui` extension): HTML pages a host shows in a sandboxed
 * frame beside a tool's result, built by scripts/build-views.mjs into dist/NAME.view.html. Only a
 * client that declares the extension is told about them: it gets `_meta.ui.resourceUri` on the tools
 * that have a view, the views in resources/list, and each result's view data in its `_meta`. Any other
 * client gets the tool list, texts and structuredContent exactly as before.
 */

interface View {
  name: string;
  title: string;
  description: string;
}

const VIEWS = {
  card: { name: 'confirmation-card', title: 'Confirmation card', description: 'Approve or cancel a gated call: what will be sent, the cost and the expiry.' },
  campaigns: { name: 'campaigns', title: 'Campaigns', description: 'Ad campaigns as a table with spend and conversions; pause and resume.' },
  suggestions: { name: 'suggestions', title: 'Campaign suggestions', description: "A campaign's suggestions by severity; dismiss or apply." },
  calendar: { name: 'social-calendar', title: 'Social calendar', description: 'A week of social posts with their status.' },
} satisfies Record<string, View>;

const viewUri = (view: View) => `ui://app-management/${view.name}.html`;
export const CONFIRMATION_CARD_URI = viewUri(VIEWS.card);

/** The read tools with a view of their own; every gated tool shows the confirmation card. */
const READ_VIEWS: Record<string, View> = {
  list_ad_campaigns: VIEWS.campaigns,
  get_ad_campaign: VIEWS.campaigns,
  list_campaign_suggestions: VIEWS.suggestions,
  list_social_posts: VIEWS.calendar,
};

/** No domain in any list: a view loads nothing from any origin (its script and style are inline). */
const RESOURCE_META = { ui: { csp: {}, prefersBorder: true } };

/**
 * Where the built pages are: dist/NAME.view.html beside the bundle (CommonJS, so __dirname is dist/),
 * or ../dist/ from src/ under vitest (which sets __dirname per module), else under the working directory.
 */
function viewDirectories(): URL[] {
  const cwd = pathToFileURL(`${process.cwd()}/dist/`);
  if (typeof __dirname !== 'string') return [cwd];
  const here = pathToFileURL(`${__dirname}/`);
  return [here, new URL('../dist/', here), cwd];
}

/** Built pages are read once per process: they change only with a new build. */
const pages = new Map<string, Promise<string>>();

function viewHtml(name: string): Promise<string> {
  let page = pages.get(name);
  if (!page) {
    page = (async () => {
      for (const directory of viewDirectories()) {
        const html = await readFile(new URL(`${name}.view.html`, directory), 'utf8').catch(() => undefined);
        if (html !== undefined) return html;
      }
      pages.delete(name);
      throw new Error(`The ${name} view is not built: run \`npm run build\`.`);
    })();
    pages.set(name, page);
  }
  return page;
}

/** The capabilities of the client behind this request: in a 2026-07-28 request's envelope, or from initialize. */
function clientCapabilities(server: McpServer, ctx: ServerContext): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const modern = envelope !== undefined && Object.keys(envelope).length > 0;
  return (modern ? envelope[CLIENT_CAPABILITIES_META_KEY] : server.server.getClientCapabilities()) as ClientCapabilities | undefined;
}

/** Whether the client behind this request declares the MCP Apps extension with HTML views. */
export function showsViews(server: McpServer, ctx: ServerContext): boolean {
  return getUiCapability(clientCapabilities(server, ctx))?.mimeTypes?.includes(RESOURCE_MIME_TYPE) === true;
}

/**
 * Registers every view as a `ui://` resource with the extension's own helper, then narrows
 * resources/list: empty for a client without the extension, which so sees no resource it cannot use.
 * A read of a view's URI works for anyone: it is the same public page for everyone.
 */
export function registerViews(server: McpServer): void {
  const all = Object.values(VIEWS);
  for (const view of all) {
    const uri = viewUri(view);
    registerAppResource(server, view.title, uri, { description: view.description, _meta: RESOURCE_META }, async () => ({
      contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text: await viewHtml(view.name), _meta: RESOURCE_META }],
    }));
  }
  server.server.setRequestHandler('resources/list', (_request, ctx) => ({
    resources: showsViews(server, ctx)
      ? all.map((view) => ({ uri: viewUri(view), name: view.title, description: view.description, mimeType: RESOURCE_MIME_TYPE, _meta: RESOURCE_META }))
      : [],
  }));
}

/**
 * tools/list for this request: a client that declares the extension gets each tool's view in
 * `_meta.ui.resourceUri` (and the older flat key); any other gets the list unchanged.
 */
export function listingFor(tools: Tool[], gated: ReadonlySet<string>, server: McpServer, ctx: ServerContext): Tool[] {
  if (!showsViews(server, ctx)) return tools;
  return tools.map((tool) => {
    const view = gated.has(tool.name) ? VIEWS.card : READ_VIEWS[tool.name];
    if (!view) return tool;
    const uri = viewUri(view);
    return { ...tool, _meta: { ...tool._meta, ui: { resourceUri: uri }, [RESOURCE_URI_META_KEY]: uri } };
  });
}
