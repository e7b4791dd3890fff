import { userInfo } from "node:os";
import type { Principal } from "../../core/principal.ts";

/**
 * Who acts on this machine's runs: the OS user running the process (`local:NAME`), an admin of
 * its own store (every run in the data directory is the user's: the files are 0600). Recorded as
 * the owner of the runs it starts and the actor of what it decides or cancels.
 */
export function localPrincipal(): Principal {
  return { id: `local:${osUser()}`, admin: true };
}

function osUser(): string {
  try {
    return userInfo().username || String(process.getuid?.() ?? "user");
  } catch {
    // No passwd entry (a container run under an arbitrary uid): the uid names the user.
    return String(process.getuid?.() ?? "user");
  }
}
