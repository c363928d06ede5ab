import type { ComponentChildren } from "preact";
import { Brand } from "../brand";
import { SignOutIcon } from "../icons";
import { LanguageSwitch } from "../language-switch";
import type { Layout } from "../layout";
import { useModel } from "../model/model";
import { AccountCard, IdentityLine } from "./identity";

/**
 * The regions of the signed-in screen (filled by src/ui/agent-screen.tsx). Each layout places the
 * regions it is given and shows nothing for the others: an agent who is no supervisor is given no
 * wallboard, and no layout leaves room for it.
 */
export interface ShellRegions {
  /** Agent status: the call-center toolbar. */
  toolbar?: ComponentChildren;
  /** After-call work, shown with the phone. */
  work?: ComponentChildren;
  /** The agent's queues. */
  queues?: ComponentChildren;
  /** The phone: registration state, dial pad, call cards. */
  phone?: ComponentChildren;
  /** Call history. */
  history?: ComponentChildren;
  /** A supervisor's wallboard: the full page's main region, a compact list in the side panel, counts in the bar. */
  wallboard?: ComponentChildren;
}

function SignOutButton() {
  const { session, t } = useModel();
  const s = session.value;
  const busy = s.status === "signing-out";
  return (
    <button
      type="button"
      class="secondary sign-out"
      title={busy ? t.value.shell.signingOut : t.value.shell.signOut}
      aria-disabled={busy || undefined}
      data-busy={busy || undefined}
      onClick={() => {
        if (!busy) void s.signOut();
      }}
    >
      {busy ? <span class="spinner" aria-hidden="true" /> : <SignOutIcon />}
      <span>{busy ? t.value.shell.signingOut : t.value.shell.signOut}</span>
    </button>
  );
}

function Region({ name, label, children }: { name: keyof ShellRegions; label?: string; children: ComponentChildren }) {
  return (
    <section class={`region region-${name}`} aria-label={label}>
      {children}
    </section>
  );
}

export function Shell({ layout, regions = {} }: { layout: Layout; regions?: ShellRegions }) {
  const { session } = useModel();
  const user = session.value.user;
  if (!user) return null;

  if (layout === "bar") {
    return (
      <div class="shell layout-bar">
        <Brand compact />
        <IdentityLine user={user} />
        <main class="bar-regions">
          {regions.toolbar && <Region name="toolbar">{regions.toolbar}</Region>}
          {regions.work}
          {regions.phone && <Region name="phone">{regions.phone}</Region>}
          {regions.wallboard}
        </main>
        <div class="shell-actions">
          <LanguageSwitch />
          <SignOutButton />
        </div>
      </div>
    );
  }

  if (layout === "side") {
    // With a phone the panel is for calls: who is signed in takes one line, the phone the space.
    const compactAccount = !!regions.phone;
    return (
      <div class="shell layout-side">
        <header class="shell-top">
          <Brand />
          <LanguageSwitch />
        </header>
        <main class="side-regions">
          {compactAccount ? (
            <div class="side-account">
              <IdentityLine user={user} />
              <SignOutButton />
            </div>
          ) : (
            <AccountCard user={user}>
              <SignOutButton />
            </AccountCard>
          )}
          {regions.toolbar && <Region name="toolbar">{regions.toolbar}</Region>}
          {regions.work}
          {regions.phone && <Region name="phone">{regions.phone}</Region>}
          {regions.wallboard}
          {regions.queues}
          {regions.history && <Region name="history">{regions.history}</Region>}
        </main>
      </div>
    );
  }

  return (
    <div class="shell layout-full">
      <header class="shell-top">
        <Brand />
        {regions.toolbar && <Region name="toolbar">{regions.toolbar}</Region>}
        <div class="shell-actions">
          <LanguageSwitch />
          <SignOutButton />
        </div>
      </header>
      {/* A supervisor's board takes the screen's whole width (a 1920 px screen is for the agents' rows). */}
      <main class={`full-regions${regions.wallboard ? " with-board" : ""}`}>
        <div class="full-column">
          <AccountCard user={user} compact={!!regions.phone} />
          {regions.work}
          {regions.phone && <Region name="phone">{regions.phone}</Region>}
        </div>
        {(regions.queues || regions.history || regions.wallboard) && (
          <div class="full-column wide">
            {regions.wallboard}
            {regions.queues}
            {regions.history && <Region name="history">{regions.history}</Region>}
          </div>
        )}
      </main>
    </div>
  );
}
