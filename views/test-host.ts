// A minimal MCP Apps host for the browser tests (test/views/): the extension's own AppBridge in the
// page, each view in a sandboxed frame (opaque origin, as hosts show it) as wide as a chat column and
// as tall as the view asks, and tools/call forwarded to the test's MCP client through
// `window.hostCallTool` (exposed by Playwright). Not shipped.
import { AppBridge, PostMessageTransport, type McpUiStyles } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';

interface Opening {
  html: string;
  tool: Tool;
  arguments: Record<string, unknown>;
  result: CallToolResult;
  theme: 'light' | 'dark';
  /** Host style variables (`--color-background-primary`, ...), as a host hands them to a view. */
  variables?: Record<string, string>;
  /** The frame's width in CSS pixels: a chat column is narrow. */
  width: number;
}

declare global {
  interface Window {
    hostCallTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult>;
    openView(opening: Opening): Promise<void>;
  }
}

/** Opens one view in a new frame and hands it the tool's input and result once it is initialized. */
window.openView = async (opening) => {
  document.body.style.margin = '0';
  document.body.style.background = opening.theme === 'dark' ? '#1e1e1e' : '#ffffff';
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.style.cssText = `display:block;border:0;width:${opening.width}px;height:200px;background:transparent`;
  // The bridge listens before the page loads: the view sends ui/initialize as soon as it runs.
  document.body.append(frame);
  const view = frame.contentWindow!;
  const bridge = new AppBridge(
    null,
    { name: 'test-host', version: '1.0.0' },
    { serverTools: {} },
    {
      hostContext: {
        toolInfo: { tool: opening.tool },
        theme: opening.theme,
        displayMode: 'inline',
        containerDimensions: { maxWidth: opening.width },
        ...(opening.variables ? { styles: { variables: opening.variables as McpUiStyles } } : {}),
      },
    },
  );
  bridge.oncalltool = (params) => window.hostCallTool({ name: params.name, arguments: params.arguments ?? {} });
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${Math.ceil(height)}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(view, view));
  frame.srcdoc = opening.html;
  await initialized;
  await bridge.sendToolInput({ arguments: opening.arguments });
  await bridge.sendToolResult(opening.result);
};
