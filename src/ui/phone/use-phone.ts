import { useModel } from "../model";
import type { PhoneUi } from "./phone-ui";

/** The phone part of the model; phone components are only placed when the app has a phone. */
export function usePhone(): PhoneUi {
  const phone = useModel().phone;
  if (!phone) throw new Error("phone component without a phone in the model");
  return phone;
}
