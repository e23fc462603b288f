// The page: one index.html for /table and /replay; the path picks the mode.

import { ReplayView, loadReplay } from "./replay";
import { PageError, obtainSession, pageMode, takeToken } from "./session";
import { showError, showLoading } from "./shell";
import { TableView } from "./table";

async function boot(root: HTMLElement, token: string | null): Promise<void> {
  const mode = pageMode();
  showLoading(root);
  try {
    const session = await obtainSession(mode, token);
    if (mode === "replay") {
      new ReplayView(root, await loadReplay(session)).start();
    } else {
      new TableView(root, session).start();
    }
  } catch (error) {
    const problem = error instanceof PageError ? error : new PageError(String(error));
    // Retrying with the same token is safe: a token the server did not take is not spent.
    showError(root, problem.message, problem.retryable ? () => void boot(root, token) : null);
  }
}

function start(): void {
  const root = document.getElementById("root") ?? document.body;
  // A new link opened in this tab changes only the fragment: load the page afresh for it.
  window.addEventListener("hashchange", () => {
    if (location.hash.length > 1) location.reload();
  });
  void boot(root, takeToken());
}

start();
