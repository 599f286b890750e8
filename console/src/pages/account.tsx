// Sign up, log in, verify the email address (the link in the mail opens /verify-email?token=...),
// forgot and reset password (/reset-password?token=...).
import { useEffect, useRef, useState, type FormEvent } from "react";
import { api, type Account } from "../api";
import { Link, navigate, useLocation } from "../router";
import { useSession } from "../session";
import { Alert, Field, Notice, Page, useSubmit } from "../ui";

/** only paths of the console itself, so a crafted ?next= cannot send people elsewhere */
function safeNext(next: string | null): string {
  return next && next.startsWith("/workspace") && !next.startsWith("//") ? next : "/workspace";
}

export function LoginPage() {
  const { search } = useLocation();
  const session = useSession();
  const form = useSubmit();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");

  async function submit(e: FormEvent) {
    e.preventDefault();
    const ok = await form.run(() => api<Account>("POST", "/auth/login", { email, password }), ["email", "password"]);
    if (ok) {
      await session.reload();
      navigate(safeNext(search.get("next")));
    }
  }
  return (
    <Page title="Log in">
      {search.get("logged_out") ? <Notice tone="success">You are logged out.</Notice> : null}
      {search.get("reset") ? <Notice tone="success">Your password has been changed. Log in with the new password.</Notice> : null}
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Alert error={form.error} />
        <Field label="Email" name="email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} error={form.fieldErrors.email} required />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={form.fieldErrors.password}
          required
        />
        <button className="button" type="submit" disabled={form.busy}>
          {form.busy ? "Logging in…" : "Log in"}
        </button>
      </form>
      <p className="aside">
        <Link href="/forgot-password">Forgot your password?</Link> · New here? <Link href="/signup">Create a workspace</Link>
      </p>
    </Page>
  );
}

export function SignupPage() {
  const session = useSession();
  const deleted = useLocation().search.get("deleted");
  const form = useSubmit();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [workspace, setWorkspace] = useState("");

  async function submit(e: FormEvent) {
    e.preventDefault();
    const ok = await form.run(
      () => api<Account>("POST", "/auth/signup", { email, password, workspace_name: workspace }),
      ["email", "password", "workspace_name"],
    );
    if (ok) {
      await session.reload();
      navigate("/workspace");
    }
  }
  return (
    <Page title="Create your workspace" lead="A workspace holds your collections, documents and API keys.">
      {deleted ? (
        <Notice tone="success">
          Workspace “{deleted}” and everything in it has been deleted, and you are signed out. Create a new workspace below, or <Link href="/login">log in</Link> to another one.
        </Notice>
      ) : null}
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Alert error={form.error} />
        <Field label="Email" name="email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} error={form.fieldErrors.email} required />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          hint="At least 10 characters."
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={form.fieldErrors.password}
          required
        />
        <Field
          label="Workspace name"
          name="workspace_name"
          autoComplete="organization"
          value={workspace}
          onChange={(e) => setWorkspace(e.target.value)}
          error={form.fieldErrors.workspace_name}
          required
        />
        <button className="button" type="submit" disabled={form.busy}>
          {form.busy ? "Creating…" : "Sign up"}
        </button>
      </form>
      <p className="aside">
        Already have an account? <Link href="/login">Log in</Link>
      </p>
    </Page>
  );
}

export function VerifyEmailPage() {
  const { search } = useLocation();
  const session = useSession();
  const token = search.get("token");
  const [state, setState] = useState<{ status: "working" | "done" | "failed"; message?: string; error?: unknown }>({ status: "working" });
  const sent = useRef(false);

  useEffect(() => {
    // a token is single-use: send it once even if React runs the effect twice
    if (!token || sent.current) return;
    sent.current = true;
    api<{ detail: string }>("POST", "/auth/verify", { token })
      .then(async (r) => {
        setState({ status: "done", message: r.detail });
        await session.reload();
      })
      .catch((error: unknown) => setState({ status: "failed", error }));
  }, [token, session]);

  if (!token) {
    return (
      <Page title="Verify your email address">
        <Alert>This link has no token. Open the link from the verification email again, or ask for a new one from the workspace.</Alert>
      </Page>
    );
  }
  return (
    <Page title="Verify your email address">
      {state.status === "working" ? <p role="status">Checking your link…</p> : null}
      {state.status === "done" ? (
        <>
          <Notice tone="success">
            <strong>Email verified.</strong> {state.message}
          </Notice>
          <p>
            <Link className="button" href={session.me ? "/workspace" : "/login"}>
              {session.me ? "Go to your workspace" : "Log in"}
            </Link>
          </p>
        </>
      ) : null}
      {state.status === "failed" ? (
        <>
          <Alert error={state.error} />
          <p>
            <Link href="/workspace">Go to your workspace</Link> to send a new link.
          </p>
        </>
      ) : null}
    </Page>
  );
}

export function ForgotPasswordPage() {
  const form = useSubmit();
  const [email, setEmail] = useState("");
  const [done, setDone] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const r = await form.run(() => api<{ detail: string }>("POST", "/auth/forgot-password", { email }), ["email"]);
    if (r) setDone(r.detail);
  }
  return (
    <Page title="Reset your password" lead="We will email you a link to choose a new password.">
      {done ? (
        <Notice tone="success">{done}</Notice>
      ) : (
        <form onSubmit={(e) => void submit(e)} noValidate>
          <Alert error={form.error} />
          <Field label="Email" name="email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} error={form.fieldErrors.email} required />
          <button className="button" type="submit" disabled={form.busy}>
            {form.busy ? "Sending…" : "Send the link"}
          </button>
        </form>
      )}
      <p className="aside">
        <Link href="/login">Back to log in</Link>
      </p>
    </Page>
  );
}

export function ResetPasswordPage() {
  const { search } = useLocation();
  const token = search.get("token") ?? "";
  const form = useSubmit();
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [mismatch, setMismatch] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setMismatch(password !== repeat);
    if (password !== repeat) return;
    const r = await form.run(() => api<{ detail: string }>("POST", "/auth/reset-password", { token, password }), ["password"]);
    if (r) navigate("/login?reset=1");
  }
  if (!token) {
    return (
      <Page title="Choose a new password">
        <Alert>This link has no token. Open the link from the email again, or <Link href="/forgot-password">ask for a new one</Link>.</Alert>
      </Page>
    );
  }
  return (
    <Page title="Choose a new password">
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Alert error={form.error} />
        <Field
          label="New password"
          name="password"
          type="password"
          autoComplete="new-password"
          hint="At least 10 characters. Every session is signed out when it changes."
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={form.fieldErrors.password}
          required
        />
        <Field
          label="Repeat the new password"
          name="repeat"
          type="password"
          autoComplete="new-password"
          value={repeat}
          onChange={(e) => setRepeat(e.target.value)}
          error={mismatch ? "The two passwords differ." : undefined}
          required
        />
        <button className="button" type="submit" disabled={form.busy}>
          {form.busy ? "Saving…" : "Change password"}
        </button>
      </form>
    </Page>
  );
}
