// The shape of a destination's webhook health, with no imports, so the admin console (web/)
// types its dashboard card with it.

export interface DestinationHealth {
  projectId: string;
  /** Host and path of the callback URL, no query. */
  destination: string;
  /** False: the test-mode events sent to it (a URL used by both modes is two destinations). */
  livemode: boolean;
  healthy: boolean;
  attemptsLastHour: number;
  successRateLastHour: number | null;
  attemptsLastDay: number;
  successRateLastDay: number | null;
  consecutiveFailures: number;
  /** The earliest next attempt of the destination's pending events. */
  nextRetryAt: string | null;
  pendingEvents: number;
  lastAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  lastSuccessAt: string | null;
}
