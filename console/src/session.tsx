// Who is signed in: GET /me with the session cookie. A 401 means nobody (the screens that need a
// session send the person to the login screen).
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";
import { api, ApiError, SIGNED_OUT, type Me } from "./api";

interface Session {
  me: Me | null;
  /** true until the first GET /me has answered */
  loading: boolean;
  /** a failure other than 401 (server down): shown instead of the login screen */
  error: unknown;
  reload(): Promise<Me | null>;
  clear(): void;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [me, setMe] = useState<Me | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);

  const reload = useCallback(async () => {
    try {
      const m = await api<Me>("GET", "/me");
      setMe(m);
      setError(null);
      return m;
    } catch (err) {
      setMe(null);
      setError(err instanceof ApiError && err.status === 401 ? null : err);
      return null;
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => {
    void reload();
  }, [reload]);

  useEffect(() => {
    const signedOut = () => setMe(null);
    window.addEventListener(SIGNED_OUT, signedOut);
    return () => window.removeEventListener(SIGNED_OUT, signedOut);
  }, []);

  const clear = useCallback(() => setMe(null), []);
  return <SessionContext.Provider value={{ me, loading, error, reload, clear }}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside SessionProvider");
  return s;
}
