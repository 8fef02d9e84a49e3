import { DomainError } from '../../errors.js';
import type { SessionRecord } from '../store.js';
import { type HostedStep, runCheck, type SessionWork, type StepPorts } from './step.js';

// The licence step: a professional licence looked up on its board, matched to the person.

export const licenceStep: HostedStep = async (session, input, work, ports) => {
  const fresh = ports.contextOf(session);
  // A licence proves something only when it is the person's: it is matched against a
  // verified name when the session has one, else against the name typed in the form.
  const verified = await verifiedHolderName(session, work, ports);
  if (verified)
    return {
      outcomes: [
        await runCheck(
          ports.checks.credential,
          { ...input, full_name: verified, first_name: undefined, last_name: undefined },
          fresh,
        ),
      ],
      work: {},
    };
  if (!input.full_name && !(input.first_name && input.last_name)) {
    throw new DomainError(
      'validation_error',
      "the licence holder's name is required (full_name, or first_name and last_name): a licence found without a name is not proof it is yours",
      {
        data: { errors: { full_name: 'required' } },
      },
    );
  }
  return { outcomes: [await runCheck(ports.checks.credential, input, fresh)], work: {} };
};

/**
 * The verified name a licence in this session must carry: the name read from the document in
 * this session, else the bound account's verified identity; null when the session has neither
 * (then the name typed in the form is matched). Any name typed is ignored when one exists.
 */
async function verifiedHolderName(session: SessionRecord, work: SessionWork, ports: StepPorts): Promise<string | null> {
  if (work.fullName) return work.fullName;
  if (session.svcId) return (await ports.accounts.stateFor(session).verifiedIdentity(session.svcId))?.fullName ?? null;
  return null;
}
