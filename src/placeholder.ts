/**
 * A setting whose value is still the placeholder a client was meant to fill: the client found no
 * value for it and passed the text on as written (Claude Code and Gemini CLI do, for `${NAME}` of an
 * unset variable). Taken as a value it would scope the server to an app called `${APPMGMT_APP_ID}`
 * or send `$APPMGMT_ACCESS_TOKEN` as a token, so start-up refuses it instead.
 *
 * The forms refused, which generated secrets and real values never take:
 * - `${…}` anywhere: `${NAME}`, `${env:NAME}`, `${input:id}`, `${user_config.name}`, `${{ secrets.NAME }}`;
 * - `$NAME` at the start, NAME in capitals, digits and `_`, then the end or a character that cannot
 *   continue a name (`$HOME/audit.log`); `ab$cd`, `$2b$12$…` and `$abc` pass;
 * - `%NAME%` at the start, then the end or such a character (`%LOCALAPPDATA%\audit.log`); a `%`
 *   escape such as `p%41%42` passes.
 */

/** Longer text between `${` and `}` is not a placeholder a client writes (and is not worth scanning). */
const MAX_PLACEHOLDER_CHARS = 200;
const BRACED = new RegExp(`\\$\\{\\{([^{}]{1,${MAX_PLACEHOLDER_CHARS}})\\}\\}|\\$\\{([^{}]{1,${MAX_PLACEHOLDER_CHARS}})\\}`);
const DOLLAR = /^\$([A-Z_][A-Z0-9_]*)(?![A-Za-z0-9_])/;
const PERCENT = /^%([A-Za-z_][A-Za-z0-9_]*)%(?![A-Za-z0-9_])/;
/** A name that may be shown: the value may be a secret, so anything else in it is never repeated. */
const SHOWABLE = /^[\w.:-]{1,64}$/;

interface Found {
  /** The placeholder as written, when its name may be shown. */
  written?: string;
  /** What it names, when that may be shown: a variable, `input:id` or `user_config.name`. */
  name?: string;
}

function find(value: string): Found | undefined {
  const braced = BRACED.exec(value);
  if (braced) {
    const inner = (braced[1] ?? braced[2]!).trim();
    if (!SHOWABLE.test(inner)) return {};
    const written = braced[1] === undefined ? `\${${inner}}` : `\${{ ${inner} }}`;
    // ${env:NAME} (VS Code, Cursor, Windsurf) and ${{ secrets.NAME }} (Continue) name the variable NAME.
    return { written, name: inner.replace(/^(env:|secrets\.)/, '') };
  }
  const bare = DOLLAR.exec(value) ?? PERCENT.exec(value);
  return bare ? { written: bare[0], name: bare[1] } : undefined;
}

/**
 * The start-up problem of a setting (a variable or a flag) whose value holds an unfilled
 * placeholder, naming the setting and what the client did not fill; never any other part of the
 * value. Undefined when the value holds none.
 */
export function unfilledPlaceholder(setting: string, value: string): string | undefined {
  const found = find(value);
  if (!found) return undefined;
  const { written, name } = found;
  if (written === undefined || name === undefined) {
    return `${setting} holds a \${…} placeholder the MCP client did not fill (the value is not shown); give it a value in the client's configuration, then restart`;
  }
  if (name.startsWith('user_config.')) {
    return `${setting} is still ${written}: the MCP host did not fill this setting; set it in the extension's settings (or give the variable a value), then restart`;
  }
  if (name.startsWith('input:')) {
    return `${setting} is still ${written}: the MCP client did not fill its input ${name.slice('input:'.length)}; check the inputs of the client's configuration, then restart`;
  }
  return `${setting} is still ${written}: the MCP client did not fill it, so ${name} is not set where the client starts; set ${name} there (or write the value itself into the client's configuration), then restart`;
}
