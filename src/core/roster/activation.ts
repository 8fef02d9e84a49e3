import type { AccountService } from '../accounts/service.js';
import { faceMatchOf, descriptorOf } from '../checks/face-match.js';
import { intakeImage } from '../checks/images.js';
import { livenessOf } from '../checks/liveness.js';
import { DomainError } from '../errors.js';
import type { FaceEngine } from '../face-engine.js';
import type { FaceActivationCheck } from './service.js';

/**
 * The face step of roster activation: the selfie must be live (the liveness check's rule: live
 * only at live_score 1) and match the account's face reference; an account without a reference
 * gets this selfie's descriptor as its reference (never the image).
 */
export function faceActivationCheck(engine: FaceEngine, accounts: AccountService): FaceActivationCheck {
  return async (svcId, bytes) => {
    const selfie = await intakeImage('selfie', bytes);
    const liveness = await livenessOf(engine, selfie);
    if (liveness.data.live_score === -1)
      throw new DomainError('no_face', 'no usable face in the selfie: face the camera in good light');
    if (liveness.status !== 'passed')
      throw new DomainError(
        'face_rescan_required',
        'the selfie did not pass the liveness check: take it again, facing the camera in good light',
      );
    const reference = await accounts.faceReference(svcId);
    if (!reference) {
      await accounts.setFaceReference(svcId, await descriptorOf(engine, selfie, 'selfie'));
      return;
    }
    const match = await faceMatchOf(engine, reference, selfie, undefined, {
      reference: 'the face reference',
      selfie: 'selfie',
    });
    if (match.status !== 'passed')
      throw new DomainError('face_mismatch', 'the selfie does not match the face on this account');
  };
}
