import { errorMessage } from "../../core/errors.ts";
import { runEmbeddedServer } from "./server.ts";

// Entry point of the detached server process: `node --import tsx serverMain.ts <dataDir>`.
const dataDir = process.argv[2];
if (!dataDir) {
  console.error("usage: serverMain.ts <dataDir>");
  process.exit(2);
}
runEmbeddedServer(dataDir).catch((error: unknown) => {
  console.error(
    `embedded server failed to start: ${error instanceof Error ? error.stack : errorMessage(error)}`,
  );
  process.exit(1);
});
