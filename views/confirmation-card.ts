// The confirmation card (MCP Apps view of every gated tool): the warning of the call the model made,
// with Approve and Cancel; or, when the host shows it for a confirmed call, that call's outcome.
import { startView, textOf } from './shared/app.js';
import { confirmationPanel, isWarning, kindOf, outcome } from './shared/confirm.js';
import { byId } from './shared/dom.js';

const main = byId('card');

await startView('confirmation-card', (result, view) => {
  const tool = view.toolName();
  // The arguments the model sent, without its confirm: Approve adds confirm: true itself.
  const { confirm: _confirm, ...args } = view.toolArguments() ?? {};
  main.replaceChildren(
    isWarning(result) && tool ? confirmationPanel(view, tool, args, result) : outcome(kindOf(result), textOf(result)),
  );
});
