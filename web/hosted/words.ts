// What the hosted page says: step titles, outcomes, gestures and the plain-words version of errors.
import type { ApiError, StepName } from './api.js';

export const TITLES: Record<StepName, string> = { document: 'Photo of your ID document', selfie: 'Take a selfie', location: 'Share your location', licence: 'Your professional licence' };

const FRIENDLY: Record<string, string> = {
  no_face: 'We could not see your face clearly. Face the camera in good, even light and try again.',
  challenge_expired: 'That took too long. Press the button and try again.',
  unprocessable: 'We could not read that photo. Make sure the whole document is in the frame, sharp and well lit.',
  image_too_large: 'That photo is too large (over 20 MB). Try again with a smaller one.',
  session_expired: 'This verification link has expired. Ask for a new one.',
  session_closed: 'This verification is already complete.',
  invalid_token: 'This verification link is not valid.',
  token_missing: 'This verification link is incomplete. Open the full link you were sent.',
};

/** An error in plain words: ours for the codes a person can act on, else the server's message. */
export const friendly = (error: unknown) => {
  const { code, message } = (error ?? {}) as ApiError;
  return (code && FRIENDLY[code]) || message || 'Something went wrong. Try again.';
};

export const GESTURES: Record<string, string> = {
  turn_left: 'Slowly turn your head to your left',
  turn_right: 'Slowly turn your head to your right',
  look_up: 'Slowly look up',
  blink: 'Blink a few times',
  smile: 'Smile',
};

export const OUTCOMES: Record<string, string> = {
  APPROVED: 'You are verified.',
  DECLINED: 'We could not verify you.',
  IN_REVIEW: 'Thanks: a person will review your verification.',
  EXPIRED: 'This verification link has expired.',
  ABANDONED: 'This verification was not finished in time.',
};

/** The label of a licensing board's extra field: `npi` reads NPI, others their words. */
export const fieldLabel = (field: string) => (field.toLowerCase() === 'npi' ? 'NPI' : field.replace(/_/g, ' '));
