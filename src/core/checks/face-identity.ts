import type { AccountService } from '../accounts/service.js';
import type { FaceEngine } from '../face-engine.js';
import type { FaceIndex } from '../faces/face-index.js';
import { antispoofCheck, runAntispoof, type AntispoofInput, type AntispoofPrepared } from './antispoof.js';
import type { ChallengeService } from './challenge.js';
import type { StandaloneCheck } from './pipeline.js';
import type { CheckOutcome } from './types.js';

/**
 * POST /api/v2/antispoof/identity: anti-spoof plus `face_id`, a stable id of the person for
 * duplicate detection. The id is the project's identity cluster the face belongs to: the nearest
 * enrolled identity within the match distance (the same rule as face match), else, for a live
 * face, a new one. So one person gets one id across photos exactly as often as face match says
 * "same person", and two people share one only when face match would confuse them. A spoof never
 * creates an identity (it may still be recognised as an existing one).
 */
export function faceIdentityCheck(deps: {
  engine: FaceEngine;
  index: FaceIndex;
  challenges: ChallengeService;
  accounts: AccountService;
}): StandaloneCheck<AntispoofInput, AntispoofPrepared> {
  return {
    ...antispoofCheck(deps),
    async execute(prepared, context): Promise<CheckOutcome> {
      const run = await runAntispoof(deps.engine, prepared, context, deps.challenges);
      const live = run.check.data.live_score === 1;
      const { matches, enrolledId: created } = await deps.index.search(
        { projectId: context.projectId, purpose: 'identity', livemode: context.livemode },
        run.descriptor,
        {
          limit: 1,
          ...(live ? { enrollIfNew: { reference: null } } : {}),
        },
      );
      const faceId = matches[0]?.faceId ?? created;
      run.check.data = { ...run.check.data, face_id: faceId, new_identity: Boolean(created) };
      return { check: run.check, reason: run.reason };
    },
  };
}
