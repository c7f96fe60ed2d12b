import { describe, expect, it } from 'vitest';
import { unfilledPlaceholder } from '../src/placeholder.js';

// The forms a client leaves in a setting it could not fill (docs/troubleshooting.md states the rule),
// and the values that only look a little like them: real secrets, paths and URLs.

describe('unfilledPlaceholder', () => {
  it.each([
    ['${NAME}, as Claude Code and Gemini CLI pass an unset variable', '${APPMGMT_APP_ID}', '${APPMGMT_APP_ID}', 'APPMGMT_APP_ID'],
    ['${env:NAME}, as VS Code, Cursor and Windsurf write it', '${env:APPMGMT_APP_ID}', '${env:APPMGMT_APP_ID}', 'APPMGMT_APP_ID'],
    ['${{ secrets.NAME }}, as Continue writes it', '${{ secrets.APPMGMT_APP_ID }}', '${{ secrets.APPMGMT_APP_ID }}', 'APPMGMT_APP_ID'],
    ['$NAME, as a client that expands nothing passes it', '$APPMGMT_APP_ID', '$APPMGMT_APP_ID', 'APPMGMT_APP_ID'],
    ['%NAME%, the Windows form', '%APPMGMT_APP_ID%', '%APPMGMT_APP_ID%', 'APPMGMT_APP_ID'],
    ['$NAME before a path', '$HOME/audit.jsonl', '$HOME', 'HOME'],
    ['%NAME% before a path', '%LOCALAPPDATA%\\audit.jsonl', '%LOCALAPPDATA%', 'LOCALAPPDATA'],
    ['${NAME} inside a longer value', 'https://${HOST}/api', '${HOST}', 'HOST'],
  ])('refuses %s, naming the setting and the variable', (_, value, written, name) => {
    expect(unfilledPlaceholder('APPMGMT_X', value)).toBe(
      `APPMGMT_X is still ${written}: the MCP client did not fill it, so ${name} is not set where the client starts; set ${name} there (or write the value itself into the client's configuration), then restart`,
    );
  });

  it("names an MCP Bundle host's setting and a VS Code input for what they are", () => {
    expect(unfilledPlaceholder('APPMGMT_READ_ONLY', '${user_config.read_only}')).toBe(
      "APPMGMT_READ_ONLY is still ${user_config.read_only}: the MCP host did not fill this setting; set it in the extension's settings (or give the variable a value), then restart",
    );
    expect(unfilledPlaceholder('APPMGMT_ACCESS_TOKEN', '${input:appmgmt-access-token}')).toBe(
      "APPMGMT_ACCESS_TOKEN is still ${input:appmgmt-access-token}: the MCP client did not fill its input appmgmt-access-token; check the inputs of the client's configuration, then restart",
    );
  });

  it('shows no other part of the value, which may be a secret', () => {
    const line = unfilledPlaceholder('APPMGMT_ACCESS_TOKEN', 'pat-Sekret-${APPMGMT_ACCESS_TOKEN}-Sekret');
    expect(line).toMatch(/^APPMGMT_ACCESS_TOKEN is still \$\{APPMGMT_ACCESS_TOKEN\}: /);
    expect(line).not.toContain('Sekret');
    const odd = unfilledPlaceholder('APPMGMT_ACCESS_TOKEN', 'pat${Sekret value}');
    expect(odd).toBe("APPMGMT_ACCESS_TOKEN holds a ${…} placeholder the MCP client did not fill (the value is not shown); give it a value in the client's configuration, then restart");
  });

  it.each([
    ['a token with a $ inside', 'ab$cd'],
    ['a token ending in $', 'pat_abc$'],
    ['a bcrypt-style value', '$2b$12$R9h/cIPz0gi.URNNX3kh2O'],
    ['a $ before lower case', '$abc123'],
    ['a $ before a mixed-case word', '$ABCdef'],
    ['a percent-escaped password in a URL', 'redis://:p%41%42%43@127.0.0.1:6379/0'],
    ['% escapes at the start', '%41%42cd'],
    ['a lone %', '100%'],
    ['$ and braces apart', '$ {x}'],
    ['an unclosed ${', 'abc${def'],
    ['an ordinary URL', 'https://api.example.com/v1'],
  ])('lets %s through', (_, value) => {
    expect(unfilledPlaceholder('APPMGMT_X', value)).toBeUndefined();
  });

  it('takes linear time on a megabyte of near misses', () => {
    const started = performance.now();
    for (const value of ['${'.repeat(500_000), `\${${'a'.repeat(1_000_000)}`, `$${'A'.repeat(1_000_000)}a`, `%${'A'.repeat(1_000_000)}`]) unfilledPlaceholder('APPMGMT_X', value);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
