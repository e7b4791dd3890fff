/**
 * For `.catch` on a file-system call whose file may rightly be absent: `fallback` when the path
 * (or a directory on it) does not exist, and any other failure (a permission, an I/O error)
 * thrown as it was, never mistaken for absence.
 */
export const whenMissing =
  <T>(fallback: T) =>
  (error: unknown): T => {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === "ENOENT" || code === "ENOTDIR") return fallback;
    throw error;
  };
