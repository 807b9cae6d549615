/**
 * Whether a process still runs, by its pid. Lock files (memory/) and session records (store/) note
 * the pid of the process writing them, and a writer that is gone means the lock may be taken over
 * or the session marked interrupted. It lives in disk/ because both layers may import it.
 */
export function processExists(pid: number): boolean {
  try {
    // Signal 0 checks the process without touching it.
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
