import type { ComponentType } from "preact";
import type { ReadonlySignal } from "@preact/signals";
import { Announcer } from "./announcer";
import { Brand } from "./brand";
import { useModel } from "./model/model";
import { afterStart } from "./after-start";
import { lazy } from "./lazy";

/**
 * The sign-in form is a file of its own: a reload with a kept session does not wait for it (it is
 * fetched once the page is ready for calls, for a later sign-out); a page without one fetches it
 * at once (`loadSignInScreen`) and shows it as it comes, a moment after the first render.
 */
const SignInScreen = lazy(() => import("./sign-in/sign-in-screen").then((m) => m.SignInScreen));
export const loadSignInScreen = (): Promise<unknown> => SignInScreen.preload();
void afterStart.then(loadSignInScreen);

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
        Workspace ? (
          <Workspace />
        ) : (
          <Restoring text={t.value.signIn.opening} />
        )
      ) : (
        <SignInScreen layout={layout} />
      )}
      <Announcer />
    </>
  );
}
