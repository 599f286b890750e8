// Screens by URL. Account screens (/login, /signup, /verify-email, /forgot-password,
// /reset-password) work without a session; everything under /workspace needs one. The server
// answers exactly these paths with the console (src/http/console.ts), so no API path is shadowed.
import { useEffect, useState, type ReactNode } from "react";
import { api } from "./api";
import { Link, match, navigate, useLocation } from "./router";
import { useSession } from "./session";
import { Alert, Notice, Page } from "./ui";
import { ForgotPasswordPage, LoginPage, ResetPasswordPage, SignupPage, VerifyEmailPage } from "./pages/account";
import { HomePage } from "./pages/home";
import { CollectionPage, CollectionsPage } from "./pages/collections";
import { SearchPage } from "./pages/search";
import { ApiKeysPage } from "./pages/api-keys";
import { CrawlJobPage, CrawlPageScreen } from "./pages/crawl";
import { DocumentPage } from "./pages/document";
import { BenchmarkPage, BenchmarksPage, NewBenchmarkPage } from "./pages/benchmarks";
import { SettingsPage } from "./pages/settings";
import { AnalyticsPage } from "./pages/analytics";
import { WebhooksPage } from "./pages/webhooks";
import { WebhookPage } from "./pages/webhook-deliveries";

type Screen = { pattern: string; render: (params: Record<string, string>) => ReactNode; label?: string };

const ACCOUNT: Screen[] = [
  { pattern: "/login", render: () => <LoginPage /> },
  { pattern: "/signup", render: () => <SignupPage /> },
  { pattern: "/verify-email", render: () => <VerifyEmailPage /> },
  { pattern: "/forgot-password", render: () => <ForgotPasswordPage /> },
  { pattern: "/reset-password", render: () => <ResetPasswordPage /> },
];

const WORKSPACE: Screen[] = [
  { pattern: "/workspace", render: () => <HomePage />, label: "Home" },
  { pattern: "/workspace/collections", render: () => <CollectionsPage />, label: "Collections" },
  { pattern: "/workspace/collections/:id", render: (p) => <CollectionPage id={p.id} /> },
  { pattern: "/workspace/documents/:id", render: (p) => <DocumentPage id={p.id} /> },
  { pattern: "/workspace/crawl", render: () => <CrawlPageScreen />, label: "Crawl" },
  { pattern: "/workspace/crawl/:id", render: (p) => <CrawlJobPage id={p.id} /> },
  { pattern: "/workspace/search", render: () => <SearchPage />, label: "Search" },
  { pattern: "/workspace/benchmarks", render: () => <BenchmarksPage />, label: "Benchmarks" },
  { pattern: "/workspace/benchmarks/new", render: () => <NewBenchmarkPage /> },
  { pattern: "/workspace/benchmarks/:id", render: (p) => <BenchmarkPage id={p.id} /> },
  { pattern: "/workspace/analytics", render: () => <AnalyticsPage />, label: "Analytics" },
  { pattern: "/workspace/webhooks", render: () => <WebhooksPage />, label: "Webhooks" },
  { pattern: "/workspace/webhooks/:id", render: (p) => <WebhookPage id={p.id} /> },
  { pattern: "/workspace/api-keys", render: () => <ApiKeysPage />, label: "API keys" },
  { pattern: "/workspace/settings", render: () => <SettingsPage />, label: "Settings" },
];

export function App() {
  const { pathname } = useLocation();
  const session = useSession();

  if (pathname === "/") {
    if (session.loading) return <Loading />;
    return <Redirect to={session.me ? "/workspace" : "/login"} />;
  }
  for (const s of ACCOUNT) {
    const params = match(s.pattern, pathname);
    if (params) return <AccountFrame>{s.render(params)}</AccountFrame>;
  }
  if (pathname === "/workspace" || pathname.startsWith("/workspace/")) {
    if (session.loading) return <Loading />;
    if (!session.me) {
      if (session.error) return <AccountFrame><Alert error={session.error} /></AccountFrame>;
      return <Redirect to={`/login?next=${encodeURIComponent(pathname + window.location.search)}`} />;
    }
    for (const s of WORKSPACE) {
      const params = match(s.pattern, pathname);
      if (params) return <WorkspaceFrame>{s.render(params)}</WorkspaceFrame>;
    }
    return (
      <WorkspaceFrame>
        <NotFound />
      </WorkspaceFrame>
    );
  }
  return (
    <AccountFrame>
      <NotFound />
    </AccountFrame>
  );
}

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return <Loading />;
}

function Loading() {
  return (
    <div className="loading" role="status">
      Loading…
    </div>
  );
}

function NotFound() {
  return (
    <Page title="Page not found">
      <p>
        There is no console screen at this address. Go to the <Link href="/workspace">workspace home</Link>, or read the API reference at{" "}
        <a href="/docs">/docs</a>.
      </p>
    </Page>
  );
}

function SkipLink() {
  return (
    <a className="skip-link" href="#main">
      Skip to content
    </a>
  );
}

function AccountFrame({ children }: { children: ReactNode }) {
  return (
    <>
      <SkipLink />
      <header className="topbar topbar--plain">
        <Link href="/" className="brand">
          Quarry
        </Link>
      </header>
      <main id="main" className="account-main">
        <div className="card account-card">{children}</div>
      </main>
    </>
  );
}

function WorkspaceFrame({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  const session = useSession();
  const me = session.me!;
  const [error, setError] = useState<unknown>(null);

  async function logout() {
    try {
      await api("POST", "/auth/logout");
      session.clear();
      navigate("/login?logged_out=1");
    } catch (err) {
      setError(err);
    }
  }
  const current = (pattern: string) => (pattern === "/workspace" ? pathname === pattern : pathname.startsWith(pattern));

  return (
    <>
      <SkipLink />
      <header className="topbar">
        <Link href="/workspace" className="brand">
          Quarry
        </Link>
        <nav aria-label="Console" className="nav">
          <ul>
            {WORKSPACE.filter((s) => s.label).map((s) => (
              <li key={s.pattern}>
                <Link href={s.pattern} aria-current={current(s.pattern) ? "page" : undefined}>
                  {s.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="account-menu">
          <span className="workspace-name" title={me.user?.email ?? undefined}>
            {me.tenant.name}
          </span>
          <button type="button" className="button button--ghost" onClick={() => void logout()}>
            Log out
          </button>
        </div>
      </header>
      <main id="main" className="workspace-main">
        <Alert error={error} />
        {me.user && !me.user.email_verified ? <VerifyBanner email={me.user.email} /> : null}
        {children}
      </main>
    </>
  );
}

function VerifyBanner({ email }: { email: string }) {
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  async function resend() {
    setError(null);
    try {
      const r = await api<{ detail: string }>("POST", "/auth/resend-verification");
      setSent(r.detail);
    } catch (err) {
      setError(err);
    }
  }
  return (
    <Notice tone="warning">
      <p>
        <strong>Verify your email address.</strong> We sent a link to {email}. Until you open it you can look around and search, but not add
        content or API keys.
      </p>
      {sent ? <p>{sent}</p> : null}
      {error ? <p className="field-error">{String((error as Error).message)}</p> : null}
      <button type="button" className="button button--secondary" onClick={() => void resend()}>
        Send the link again
      </button>
    </Notice>
  );
}
