// Load data for a portal page: the value, the error message (with its request id), and a reload.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from '../src/refusal.ts';

export { errorText };

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const seq = useRef(0);
  const run = useCallback(() => {
    const n = ++seq.current;
    load().then(
      (d) => {
        if (n !== seq.current) return;
        setData(d);
        setError(null);
      },
      (e: unknown) => n === seq.current && setError(errorText(e)),
    );
  }, deps);
  useEffect(run, [run]);
  return { data, error, reload: run };
}
