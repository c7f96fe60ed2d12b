import type { Config } from './config.js';
import { idText } from './text.js';
import { CATALOG, type ToolLike } from './tools/catalog.js';
import type { Offered } from './tools/define.js';

/** The tools that list the ids other tools take, in the order the instructions name them. */
const ID_SOURCES = ['list_ad_campaigns', 'list_email_templates', 'list_group_shares', 'list_social_posts'];
/** Tools that take group or workspace ids, which only the user (or, in the sandbox, check_connection) has. */
const TAKES_USER_IDS = ['share_app_with_groups', 'get_workspace_analytics'];

/**
 * The `instructions` of the initialize answer, for one caller's selection: how to find ids, the
 * confirmation rule when a costly tool is offered, what this server leaves out, and the next step.
 * Names only tools the selection offers (issue 29).
 */
export function instructionsFor(
  config: Pick<Config, 'appId' | 'readOnly' | 'tools' | 'toolsets'>,
  offered: Offered & { tools: readonly ToolLike[] },
  server: Pick<Config, 'appId' | 'readOnly' | 'tools' | 'toolsets'> = config,
): string {
  const has = (name: string) => offered.has(name);
  const listers = ID_SOURCES.filter(has);
  const ids = listers.length ? ` ${listers.length > 1 ? `${listers.slice(0, -1).join(', ')} and ${listers.at(-1)} give` : `${listers[0]} gives`} the other ids.` : '';
  // A grant (issue 26) narrows one connection; the operator's settings narrow the whole server.
  const who = (narrower: boolean) => (narrower ? 'This connection' : 'This server');
  const app = config.appId
    ? `${who(config.appId !== server.appId)} is scoped to app ${idText(config.appId)}: tools take no app_id.${ids}`
    : `Ask the user for the app id (no operation lists apps).${ids}`;
  const lines = [`Start with check_connection. ${app}`];
  if (TAKES_USER_IDS.some(has)) lines.push('Group and workspace ids come from the user; in the sandbox check_connection lists them.');
  if (offered.tools.some((tool) => tool.cost !== 'none')) {
    lines.push('Tools that spend money or credits or delete for good first return a warning and send nothing: show it to the user, and only if they agree call again with the same arguments plus confirm: true.');
  }
  if (config.readOnly || config.tools || config.toolsets) {
    const granted = config.readOnly !== server.readOnly || config.toolsets !== server.toolsets;
    const narrowed =
      config.readOnly && !config.tools && !config.toolsets
        ? `${who(granted)} is read-only: it offers only tools that change nothing`
        : `${who(granted)} offers ${offered.tools.length} of ${granted ? "the server's" : 'its'} ${CATALOG.length} tools`;
    lines.push(`${narrowed}; a result says when a step needs one it does not offer.`);
  }
  lines.push('Each result ends with Next: follow it.');
  return lines.join('\n');
}
