import type { CheckOutcome } from '../../checks/types.js';
import type { EvidenceKind } from '../entities.js';
import type { SessionRecord } from '../store.js';
import { type HostedStep, runCheck, type SessionWork, type StepPorts } from './step.js';

// The document step: the ID read (front, and back when sent), the age from its date of birth when
// the workflow asks for it, and the portrait left (sealed) for the selfie's face match.

export const documentStep: HostedStep = async (session, input, _work, ports) => {
  const has = (feature: string) => session.features.includes(feature);
  const reading = await runCheck(
    ports.checks.idVerification,
    { front_image: input.front_image, back_image: input.back_image },
    ports.contextOf(session),
  );
  const data = reading.check.data as { fields?: Record<string, string | undefined>; portrait?: string; dob?: string };
  const fields = data.fields ?? {};
  const patch: SessionWork = {
    portrait: data.portrait || undefined,
    fullName: fields.full_name,
    dateOfBirth: data.dob,
    documentNumber: fields.document_number,
    documentExpiry: fields.date_of_expiry,
    country: fields.country,
  };
  const outcomes: CheckOutcome[] = [];
  if (has('id_verification')) {
    // The portrait stays in the sealed work for the face match; the record keeps the fields.
    const { portrait: _portrait, ...kept } = reading.check.data;
    outcomes.push({ ...reading, check: { ...reading.check, data: kept } });
  }
  if (has('age')) outcomes.push(await ageFromDocument(session, data.dob, ports));
  const candidates: { kind: EvidenceKind; bytes: unknown }[] = [
    { kind: 'document_front', bytes: input.front_image },
    { kind: 'document_back', bytes: input.back_image },
    { kind: 'document_portrait', bytes: data.portrait ? Buffer.from(data.portrait, 'base64') : undefined },
  ];
  const images = candidates.filter((image): image is { kind: EvidenceKind; bytes: Buffer } =>
    Buffer.isBuffer(image.bytes),
  );
  return { outcomes, work: patch, images };
};

/** The age band the workflow asks for, from the date of birth read; to review when none could be read. */
async function ageFromDocument(
  session: SessionRecord,
  dob: string | undefined,
  ports: StepPorts,
): Promise<CheckOutcome> {
  if (!dob) {
    return {
      check: {
        type: 'age',
        status: 'review',
        data: { dob: null, bands: {} },
        error: 'the date of birth could not be read from the document',
      },
      reason: 'dob_unreadable',
    };
  }
  return runCheck(ports.checks.age, { dob, bands: [ports.minAgeOf(session)] }, ports.contextOf(session));
}
