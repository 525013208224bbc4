import { useCallback, useEffect, useState } from "preact/hooks";
import { api } from "./api";

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  reload: () => void;
}

/** GETs `path` now, again every `everyMs` when given, and on reload(); errors are shown, not thrown. */
export function useData<T>(path: string, onAuth: (err: unknown) => boolean, everyMs?: number): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    api.get<T>(path).then(
      (value) => {
        setData(value);
        setError(null);
      },
      (err: unknown) => {
        if (!onAuth(err)) setError((err as Error).message);
      },
    );
  }, [path]);
  useEffect(() => {
    load();
    if (!everyMs) return undefined;
    const timer = setInterval(load, everyMs);
    return () => clearInterval(timer);
  }, [load, everyMs]);
  return { data, error, reload: load };
}

/** Runs a button's request, then `after`; shows its error next to the page instead of throwing. */
export function useAction(onAuth: (err: unknown) => boolean): { run: (work: () => Promise<unknown>, after?: () => void) => void; error: string | null } {
  const [error, setError] = useState<string | null>(null);
  const run = (work: () => Promise<unknown>, after?: () => void) => {
    work().then(
      () => {
        setError(null);
        after?.();
      },
      (err: unknown) => {
        if (!onAuth(err)) setError((err as Error).message);
      },
    );
  };
  return { run, error };
}
