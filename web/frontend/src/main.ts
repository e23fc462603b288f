// The page: one index.html for /table, /replay and (a Discord Activity) /; the path
// picks the mode.

import { activitySession, inDiscord } from "./activity";
import { ReplayView, loadReplay } from "./replay";
import { PageError, obtainSession, pageMode, takeToken } from "./session";
import { showError, showLoading } from "./shell";
import { TableView } from "./table";

async function boot(root: HTMLElement, token: string | null): Promise<void> {
  const mode = pageMode();
  showLoading(root);
  try {
    // Inside Discord the user is Discord's (src/activity.ts); elsewhere the link's token.
    const session = mode === "table" && inDiscord()
      ? await activitySession()
      : await obtainSession(mode, token);
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
