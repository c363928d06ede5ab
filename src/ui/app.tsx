import { Announcer } from "./announcer";
import { Brand } from "./brand";
import { useModel } from "./model";
import { Shell } from "./shell/shell";
import { SignInScreen } from "./sign-in/sign-in-screen";

function Restoring() {
  const { t, layout } = useModel();
  return (
    <div class={`restoring layout-${layout}`} aria-busy="true">
      <Brand compact={layout === "bar"} />
      <p>
        <span class="spinner" aria-hidden="true" />
        {t.value.signIn.restoring}
      </p>
    </div>
  );
}

export function App() {
  const { session, layout } = useModel();
  const status = session.value.status;
  return (
    <>
      {status === "restoring" ? (
        <Restoring />
      ) : status === "signed-in" || status === "signing-out" ? (
        <Shell layout={layout} />
      ) : (
        <SignInScreen layout={layout} />
      )}
      <Announcer />
    </>
  );
}
