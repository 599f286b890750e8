// Building blocks shared by the screens: labelled fields with their own error messages, the page
// frame that moves focus to its heading, usage bars, status badges and the copy button.
import { useEffect, useId, useRef, useState, type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes } from "react";
import { ApiError } from "./api";

export function Page({ title, children, lead }: { title: string; lead?: ReactNode; children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Quarry`;
    // a new screen: screen readers and keyboard users start at its heading
    heading.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {lead ? <p className="lead">{lead}</p> : null}
      {children}
    </>
  );
}

type FieldProps = { label: string; error?: string; hint?: ReactNode; name: string } & InputHTMLAttributes<HTMLInputElement>;

export function Field({ label, error, hint, name, ...input }: FieldProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`field${error ? " field--invalid" : ""}`}>
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      <input id={id} name={name} aria-invalid={error ? true : undefined} aria-describedby={described} {...input} />
      {error ? (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function TextArea({ label, error, name, ...rest }: { label: string; error?: string; name: string } & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = useId();
  return (
    <div className={`field${error ? " field--invalid" : ""}`}>
      <label htmlFor={id}>{label}</label>
      <textarea id={id} name={name} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} {...rest} />
      {error ? (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The error of a request as a sentence a person can act on (form-level; fields show their own). */
export function Alert({ error, children }: { error?: unknown; children?: ReactNode }) {
  if (!error && !children) return null;
  return (
    <div className="alert alert--error" role="alert">
      {children ?? messageOf(error)}
    </div>
  );
}

export function Notice({ children, tone = "info" }: { children: ReactNode; tone?: "info" | "success" | "warning" }) {
  return (
    <div className={`alert alert--${tone}`} role="status">
      {children}
    </div>
  );
}

export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * State of a form submitted to the API: field errors from a 422, a form-level error otherwise.
 * `run` returns the action's result, or undefined when it failed.
 */
export function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  async function run<T>(action: () => Promise<T>, known: string[] = []): Promise<T | undefined> {
    setBusy(true);
    setError(null);
    setFieldErrors({});
    try {
      return await action();
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) {
        const fields = err.fieldErrors();
        setFieldErrors(fields);
        // issues about fields the form does not show still need saying
        const unshown = Object.keys(fields).filter((f) => !known.includes(f));
        if (unshown.length || Object.keys(fields).length === 0) setError(err);
        else setError(new Error("Some fields need changing; see the messages below them."));
      } else {
        setError(err);
      }
      return undefined;
    } finally {
      setBusy(false);
    }
  }
  return { busy, fieldErrors, error, setError, setFieldErrors, run };
}

export function UsageBar({ label, used, limit }: { label: string; used: number; limit: number | null }) {
  const pct = limit ? Math.min(100, Math.round((used / limit) * 100)) : 0;
  const text = limit === null ? `${used.toLocaleString("en")} used (unlimited)` : `${used.toLocaleString("en")} of ${limit.toLocaleString("en")}`;
  const tone = limit === null ? "" : pct >= 100 ? " usage--full" : pct >= 80 ? " usage--high" : "";
  return (
    <div className={`usage${tone}`}>
      <div className="usage-head">
        <span className="usage-label">{label}</span>
        <span className="usage-value">{text}</span>
      </div>
      {limit === null ? (
        <div className="usage-track usage-track--unlimited" aria-hidden="true" />
      ) : (
        <div className="usage-track" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={limit} aria-valuenow={used} aria-valuetext={text}>
          <div className="usage-fill" style={{ width: `${pct}%` }} />
        </div>
      )}
    </div>
  );
}

const STATUS_TEXT: Record<string, string> = {
  queued: "Queued",
  processing: "Processing",
  indexed: "Indexed",
  failed: "Failed",
  ready: "Ready",
  syncing: "Syncing",
  error: "Error",
  active: "Active",
  revoked: "Revoked",
  expired: "Expired",
  running: "Running",
  completed: "Completed",
  cancelled: "Cancelled",
  pass: "Pass",
  warn: "Warning",
  fail: "Fail",
  info: "Info",
  enabled: "Enabled",
  disabled: "Disabled",
  pending: "Pending",
  delivered: "Delivered",
};

export function Status({ value }: { value: string }) {
  return <span className={`status status--${value}`}>{STATUS_TEXT[value] ?? value}</span>;
}

/** Copies text to the clipboard and says so; falls back to selecting a hidden text area. */
export function CopyButton({ text, label = "Copy", className }: { text: string; label?: string; className?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const t = setTimeout(() => setState("idle"), 4000);
    return () => clearTimeout(t);
  }, [state]);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      const area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.append(area);
      area.select();
      const ok = document.execCommand("copy");
      area.remove();
      setState(ok ? "copied" : "failed");
    }
  }
  return (
    <span className="copy">
      <button type="button" className={className ?? "button button--secondary"} onClick={() => void copy()}>
        {label}
      </button>
      <span className="copy-state" role="status">
        {state === "copied" ? "Copied to the clipboard." : state === "failed" ? "Could not copy; select the text and copy it yourself." : ""}
      </span>
    </span>
  );
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return d.toLocaleString("en-GB", { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** A progress bar with its value in words (for "pages crawled of the limit" and the like). */
export function Progress({ label, value, max, text }: { label: string; value: number; max: number; text: string }) {
  const pct = max > 0 ? Math.min(100, Math.round((value / max) * 100)) : 0;
  return (
    <div className="usage">
      <div className="usage-head">
        <span className="usage-label">{label}</span>
        <span className="usage-value">{text}</span>
      </div>
      <div className="usage-track" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={max} aria-valuenow={value} aria-valuetext={text}>
        <div className="usage-fill" style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}

/**
 * A destructive action asked twice, inline (no window.confirm): the button, then a sentence that
 * says what happens and what is kept, with the confirmation focused.
 */
export function ConfirmAction({
  label,
  confirmLabel,
  question,
  onConfirm,
  busy,
  accessibleLabel,
}: {
  label: string;
  confirmLabel: string;
  question: ReactNode;
  onConfirm: () => void;
  busy?: boolean;
  accessibleLabel?: string;
}) {
  const [open, setOpen] = useState(false);
  if (!open) {
    return (
      <button type="button" className="button button--danger-ghost" onClick={() => setOpen(true)} aria-label={accessibleLabel}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={accessibleLabel ? `${accessibleLabel}?` : `${label}?`}>
      <span>{question}</span>
      <button type="button" className="button button--danger" onClick={onConfirm} disabled={busy} autoFocus>
        {confirmLabel}
      </button>
      <button type="button" className="button button--ghost" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </span>
  );
}

export const percent = (x: number | undefined | null) => (x == null ? "—" : `${(x * 100).toFixed(1)}%`);

/** A table's header row: one column per name, and an unnamed (for screen readers: "Actions") last one when asked. */
export function ColumnHeads({ names, actions }: { names: string[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {names.map((n) => (
          <th key={n} scope="col">
            {n}
          </th>
        ))}
        {actions ? (
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        ) : null}
      </tr>
    </thead>
  );
}

/** A labelled select of the workspace's collections, with an optional first choice for "none". */
export function CollectionSelect(props: { id: string; label: string; collections: { id: string; name: string }[]; value: string; onChange: (id: string) => void; none?: string }) {
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        {props.none !== undefined ? <option value="">{props.none}</option> : null}
        {props.collections.map((c) => (
          <option key={c.id} value={c.id}>
            {c.name}
          </option>
        ))}
      </select>
    </div>
  );
}

/** While `active`, calls `fn` every `ms` (work the server is still doing: indexing, deliveries). */
export function usePoll(active: boolean, fn: () => void, ms = 1500) {
  useEffect(() => {
    if (!active) return;
    const t = setInterval(fn, ms);
    return () => clearInterval(t);
  }, [active, fn, ms]);
}
