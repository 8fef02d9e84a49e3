import type { NextFunction, Request, Response } from 'express';
import { MAX_FRAMES } from '../core/checks/antispoof.js';
import { DomainError } from '../core/errors.js';
import type { Core } from '../core/index.js';
import type { SessionRecord } from '../core/sessions/store.js';
import { CHECK_BODY_LIMIT, type UploadRules } from '../http/input.js';

// What a hosted step's upload may be, and how many of a session's are read at once. The page has
// only a session token, so this is where a leaked or scripted token would make us buffer.

/** A step without images (location, licence) is a few fields. */
export const FIELDS_ONLY_LIMIT = 64 * 1024;

/**
 * The upload rules of one hosted step, decided before its body is read: the document takes its
 * two images, the selfie a burst of at most MAX_FRAMES frames whose challenge is checked before
 * any frame is read, the other steps no file and a few fields.
 */
export function stepUploadRules(core: Core, session: SessionRecord, step: string): UploadRules {
  switch (step) {
    case 'document':
      return {
        maxBytes: CHECK_BODY_LIMIT,
        maxFiles: 2,
        tooManyFiles: () =>
          new DomainError('validation_error', 'the document step takes two files: front_image and back_image'),
      };
    case 'selfie':
      return {
        maxBytes: CHECK_BODY_LIMIT,
        maxFiles: MAX_FRAMES,
        tooManyFiles: () => new DomainError('too_many_frames', `at most ${MAX_FRAMES} frames`),
        // Multipart sends challenge_id before the frames (fields first), so an unknown, used or
        // expired challenge is refused with no frame read.
        beforeImages: (fields) => core.sessions.assertSelfieChallenge(session, fields.challenge_id),
      };
    default:
      return {
        maxBytes: FIELDS_ONLY_LIMIT,
        maxFiles: 0,
        tooManyFiles: () => new DomainError('validation_error', `the ${step} step takes no files`),
      };
  }
}

/** A session's upload on this instance: its answer has gone (or the caller left), and whether the step still runs. */
interface UploadSlot {
  closed: boolean;
  running: boolean;
}

/**
 * One step upload per session at a time on this instance, from its first byte to the step's
 * answer (and, when the caller hangs up, to the step's end): another one meanwhile is refused
 * before its body is read, with 409 `conflict`, whichever of the session's tokens sends it.
 * `runningStep` marks the step's work, which holds the slot past a hang-up.
 */
export function oneUploadPerSession(sessionOf: (res: Response) => SessionRecord) {
  const slots = new Map<string, UploadSlot>();
  const release = (id: string, slot: UploadSlot) => {
    if (slots.get(id) === slot) slots.delete(id);
  };
  return {
    claim(_req: Request, res: Response, next: NextFunction): void {
      const id = sessionOf(res).id;
      if (slots.has(id))
        throw new DomainError('conflict', "another step of this session is being sent; wait for that one's answer");
      const slot: UploadSlot = { closed: false, running: false };
      slots.set(id, slot);
      res.locals.uploadSlot = slot;
      res.on('close', () => {
        slot.closed = true;
        if (!slot.running) release(id, slot);
      });
      next();
    },
    async runningStep<T>(res: Response, work: () => Promise<T>): Promise<T> {
      const slot = res.locals.uploadSlot as UploadSlot;
      slot.running = true;
      try {
        return await work();
      } finally {
        slot.running = false;
        if (slot.closed) release(sessionOf(res).id, slot);
      }
    },
  };
}
