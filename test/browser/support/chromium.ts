import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's `chromium` package (Playwright's own browser download is not used). */
export const CHROMIUM = process.env.RUNLOG_CHROMIUM ?? "/usr/bin/chromium";

/**
 * Chromium, headless, driven by playwright-core. Missing, it fails naming what to install:
 * a browser test never skips (.ci/run installs it).
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `the browser tests drive Chromium at ${CHROMIUM}, which is missing: install Debian's chromium package (apt-get install chromium) or set RUNLOG_CHROMIUM to a Chromium binary`,
    );
  }
  // No sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
}
