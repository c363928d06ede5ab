import { Announcer } from "./announcer";
import { Brand } from "./brand";
import type { Layout } from "./layout";
import { useModel } from "./model";
import { Shell } from "./shell/shell";
import { SignInScreen } from "./sign-in/sign-in-screen";

function Restoring({ layout }: { layout: Layout }) {
  const { t } = useModel();
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

export function App({ layout }: { layout: Layout }) {
  const status = useModel().session.value.status;
  return (
    <>
      {status === "restoring" ? (
        <Restoring layout={layout} />
      ) : status === "signed-in" || status === "signing-out" ? (
        <Shell layout={layout} />
      ) : (
        <SignInScreen layout={layout} />
      )}
      <Announcer />
    </>
  );
}
