import { LogoMark } from "./icons";
import { useModel } from "./model/model";

/** The product mark; `compact` shows the mark only, still named for assistive technology. */
export function Brand({ compact = false }: { compact?: boolean }) {
  const { t } = useModel();
  return (
    <div class="brand" title={compact ? t.value.app.name : undefined}>
      <LogoMark />
      {compact ? <span class="sr-only">{t.value.app.name}</span> : <span class="brand-name">{t.value.app.name}</span>}
    </div>
  );
}
