/** Whether a process exists. EPERM means it does, owned by someone else; only ESRCH means it is gone. */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};
