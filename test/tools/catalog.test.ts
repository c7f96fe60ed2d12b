import { describe, expect, it } from 'vitest';
import { TOOLSET_NAMES } from '../../src/config.js';
import { CATALOG, selectTools } from '../../src/tools/catalog.js';
import { TOOLS, TOOLSETS } from '../../src/tools/index.js';

// The server answers initialize from the catalog and loads the tools only when a request needs them
// (issue 31): the catalog must say of every tool exactly what the tool says of itself.
describe('the tool catalog', () => {
  it('names every tool of the registry, in its order, with its title, toolset, cost and read-only hint', () => {
    const fromTools = Object.entries(TOOLSETS).flatMap(([toolset, tools]) =>
      tools.map((tool) => ({ name: tool.name, title: tool.title, toolset, cost: tool.cost, annotations: { readOnlyHint: tool.annotations.readOnlyHint } })),
    );
    expect(CATALOG).toEqual(fromTools);
    expect(CATALOG.map((entry) => entry.name)).toEqual(TOOLS.map((tool) => tool.name));
    expect(new Set(CATALOG.map((entry) => entry.toolset))).toEqual(new Set(TOOLSET_NAMES));
  });

  it('selects the same tools as the definitions for every selection', () => {
    const selections = [
      {},
      { readOnly: true },
      { toolsets: ['campaigns' as const] },
      { toolsets: ['emails' as const, 'chat' as const], readOnly: true },
      { tools: ['list_ad_campaigns', 'create_ad_campaign'] },
      { tools: ['create_ad_campaign'], readOnly: true },
    ].map((selection) => ({ readOnly: false, ...selection }));
    for (const selection of selections) {
      expect(selectTools(selection, CATALOG).map((entry) => entry.name)).toEqual(selectTools(selection, TOOLS).map((tool) => tool.name));
    }
    expect(() => selectTools({ readOnly: false, tools: ['no_such_tool'] }, CATALOG)).toThrow(/Unknown tool no_such_tool/);
  });
});
