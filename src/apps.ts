import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import type { McpServer, Tool } from '@modelcontextprotocol/server';
import { registerAppResource, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';

/**
 * MCP Apps views (the `io.modelcontextprotocol/ui` extension): HTML pages a host shows in a sandboxed
 * frame beside a tool's result, built by scripts/build-views.mjs into dist/NAME.view.html. Every client
 * is told about them, whatever its transport and protocol era: the tools that have a view name it in
 * `_meta.ui.resourceUri`, resources/list lists the views, and each result carries its view data in its
 * `_meta`, but for a 2026-07-28 request whose client capabilities leave the extension out (server.ts,
 * showsViews). A client without the extension ignores `_meta`, and the model never reads it. The
 * server cannot ask first: a 2025-era client over HTTP is served without a session, so its
 * capabilities from initialize are gone by the time it lists tools (issue 27).
 */

/** The extension's name, declared in the server's capabilities (capabilities.extensions, SEP-2133). */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';

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

/**
 * The arguments of a call as a view sends them back: exactly as given, less `app_id` on a server
 * scoped to one app, where it is not an argument (the server adds it). A view reads them from its
 * result's view data, since the host's tool input is optional in the spec (issue 27).
 */
export function viewArguments(args: Record<string, unknown>, scoped: boolean): Record<string, unknown> {
  if (!scoped) return args;
  const { app_id: _appId, ...unscoped } = args;
  return unscoped;
}

/** A read tool's result with the arguments of its call in the view data, when it has view data. */
export function withArguments<T extends { view?: Record<string, unknown> }>(result: T, args: Record<string, unknown>, scoped: boolean): T {
  return result.view ? { ...result, view: { ...result.view, arguments: viewArguments(args, scoped) } } : result;
}

/**
 * Registers every view as a `ui://` resource with the extension's own helper: resources/list lists
 * them for every client, and a read of a view's URI gives the same public page to everyone.
 */
export function registerViews(server: McpServer): void {
  for (const view of Object.values(VIEWS)) {
    const uri = viewUri(view);
    registerAppResource(server, view.title, uri, { description: view.description, _meta: RESOURCE_META }, async () => ({
      contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text: await viewHtml(view.name), _meta: RESOURCE_META }],
    }));
  }
}

/**
 * tools/list with each tool's view in `_meta.ui.resourceUri` (and the older flat key, which hosts
 * built before the stable spec read): every gated tool shows the confirmation card.
 */
export function withViews(tools: Tool[], gated: ReadonlySet<string>): Tool[] {
  return tools.map((tool) => {
    const view = gated.has(tool.name) ? VIEWS.card : READ_VIEWS[tool.name];
    if (!view) return tool;
    const uri = viewUri(view);
    return { ...tool, _meta: { ...tool._meta, ui: { resourceUri: uri }, [RESOURCE_URI_META_KEY]: uri } };
  });
}
