import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { displayAddress, type SessionUser } from "../../session";
import type { Messages } from "../i18n";
import { useModel } from "../model/model";

export function roleName(role: string, t: Messages): string {
  return (t.shell.roles as Record<string, string | undefined>)[role] ?? role;
}

/** Two Latin initials ("AA" for Alice Agent), or the first character of a CJK name. */
export function initialsOf(name: string): string {
  // Letters and digits only: `Anna "Annie" Smith` is AA, not A".
  const words = name
    .trim()
    .split(/\s+/)
    .map((w) => w.replace(/[^\p{L}\p{N}]/gu, ""))
    .filter(Boolean);
  if (words.length === 0) return Array.from(name.trim())[0] ?? "?";
  if (/^[\u2e80-\u9fff\uac00-\ud7af]/.test(words[0]!)) return Array.from(words[0]!)[0]!;
  const letters =
    words.length > 1 ? [words[0]!, words[1]!].map((w) => Array.from(w)[0]) : Array.from(words[0]!).slice(0, 2);
  return letters.join("").toUpperCase();
}

export function Avatar({ name }: { name: string }) {
  return (
    <span class="avatar" aria-hidden="true">
      {initialsOf(name)}
    </span>
  );
}

/** Moves focus to the signed-in identity once, so keyboard and screen-reader users land there. */
function useLandingFocus() {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    ref.current?.focus({ preventScroll: true });
  }, []);
  return ref;
}

/** One line for the bar: who is signed in, as name over login, role and extension. */
export function IdentityLine({ user }: { user: SessionUser }) {
  const t = useModel().t.value;
  const ref = useLandingFocus();
  const facts = [
    user.login,
    roleName(user.role, t),
    user.extension ? t.shell.extensionShort(user.extension) : "",
  ].filter(Boolean);
  return (
    <div class="identity-line" data-testid="identity">
      <Avatar name={user.name} />
      <div class="identity-text">
        <span class="identity-name" tabIndex={-1} ref={ref as never}>
          {user.name}
        </span>
        <span class="identity-facts">{facts.join(" · ")}</span>
      </div>
    </div>
  );
}

/**
 * The account card of the side panel and the full page. `compact` (next to the phone) keeps the
 * name as the heading and puts the facts on one line, leaving the height to the calls.
 */
export function AccountCard({
  user,
  children,
  compact = false,
}: {
  user: SessionUser;
  children?: ComponentChildren;
  compact?: boolean;
}) {
  const model = useModel();
  const t = model.t.value;
  const platformUrl = model.session.value.platformUrl;
  const ref = useLandingFocus();
  const address = displayAddress(platformUrl, model.pageOrigin).replace(/^https?:\/\//, "");
  if (compact) {
    const facts = [
      user.login,
      roleName(user.role, t),
      user.extension ? t.shell.extensionShort(user.extension) : t.shell.noExtension,
      user.domain,
    ].filter(Boolean);
    return (
      <section class="account-card compact" aria-labelledby="account-name" data-testid="identity">
        <div class="account-head">
          <Avatar name={user.name} />
          <div class="account-title">
            <h1 id="account-name" tabIndex={-1} ref={ref as never}>
              {user.name}
            </h1>
            <p class="account-role" title={`${t.shell.platform}: ${address}`}>
              {facts.join(" · ")}
            </p>
          </div>
        </div>
        {children}
      </section>
    );
  }
  return (
    <section class="account-card" aria-labelledby="account-name" data-testid="identity">
      <div class="account-head">
        <Avatar name={user.name} />
        <div class="account-title">
          <h1 id="account-name" tabIndex={-1} ref={ref as never}>
            {user.name}
          </h1>
          <p class="account-role">{roleName(user.role, t)}</p>
        </div>
      </div>
      <dl class="account-facts">
        <div>
          <dt>{t.shell.login}</dt>
          <dd>{user.login}</dd>
        </div>
        <div>
          <dt>{t.shell.extension}</dt>
          <dd>{user.extension || t.shell.noExtension}</dd>
        </div>
        {user.domain && (
          <div>
            <dt>{t.shell.domain}</dt>
            <dd>{user.domain}</dd>
          </div>
        )}
        <div>
          <dt>{t.shell.platform}</dt>
          <dd>{address}</dd>
        </div>
      </dl>
      {children}
    </section>
  );
}
