import type { ComponentType } from "preact";
import type { ReadonlySignal } from "@preact/signals";
import { Announcer } from "./announcer";
import { Brand } from "./brand";
import { useModel } from "./model/model";
import { SignInScreen } from "./sign-in/sign-in-screen";

function Restoring({ text }: { text: string }) {
  const { layout } = useModel();
  return (
    <div class={`restoring layout-${layout}`} aria-busy="true">
      <Brand compact={layout === "bar"} />
      <p>
        <span class="spinner" aria-hidden="true" />
        {text}
      </p>
    </div>
  );
}

/**
 * The page: the sign-in screen, or the signed-in screen once its code is here (`workspace`: the
 * phone, the toolbar, sip.js, loaded in the background while the agent types).
 */
export function App({ workspace }: { workspace: ReadonlySignal<ComponentType | null> }) {
  const { session, t, layout } = useModel();
  const status = session.value.status;
  const Workspace = workspace.value;
  return (
    <>
      {status === "restoring" ? (
        <Restoring text={t.value.signIn.restoring} />
      ) : status === "signed-in" || status === "signing-out" ? (
        Workspace ? <Workspace /> : <Restoring text={t.value.signIn.opening} />
      ) : (
        <SignInScreen layout={layout} />
      )}
      <Announcer />
    </>
  );
}
