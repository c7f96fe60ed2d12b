// The confirmation card (MCP Apps view of every gated tool): the warning of the call the model made,
// with the button that does it and Cancel; or, when the host shows it for another answer, that
// answer in one line. A warning is always shown as a warning, whatever the host passes.
import { startView } from './shared/app.js';
import { confirmationPanel, kindOf, outcome } from './shared/confirm.js';
import { byId } from './shared/dom.js';

const main = byId('card');

await startView('confirmation-card', {
  result(result, view) {
    const kind = kindOf(result);
    // The host's toolInfo and tool input are only a fallback: the warning's view data names both.
    const fallback = { tool: view.toolName(), args: view.toolArguments() };
    main.replaceChildren(kind === 'warning' ? confirmationPanel(view, result, fallback) : outcome(kind, result));
  },
  cancelled(_reason, view) {
    const confirming = view.toolArguments()?.confirm === true;
    main.replaceChildren(
      outcome(confirming ? 'unknown' : 'cancelled', confirming ? 'the confirmed call was cancelled before it answered: check in the chat whether it took effect.' : 'the call was cancelled before it answered; nothing was sent.'),
    );
  },
});
