// What every screen knows about the caller: the token, the viewer, and the shop looked at (a
// merchant's own; for PLATFORM, the one picked).
import { createContext, useContext } from 'react';

export type Session = {
  token: string;
  role: string;
  userId: string;
  /** The shop the screens show: the merchant's, or the one PLATFORM picked (null: none yet). */
  shop: string | null;
  timeZone: string;
  statsMaxDays: number;
  uploadMaxBytes: number;
};

export const SessionContext = createContext<Session | null>(null);

/** The signed-in session (screens render only inside one). */
export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in session');
  return s;
}
