/**
 * Waiting with a bound: `settleWithin(p, ms, late)` is `p`, or what `late()` returns (or throws)
 * once `ms` passed first. The timer is cleared when `p` settles, so it never holds a process open.
 */
export function settleWithin<T, F>(p: Promise<T>, ms: number, late: () => F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<F>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}
