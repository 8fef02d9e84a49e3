import { documentStep } from './document.js';
import { licenceStep } from './licence.js';
import { locationStep } from './location.js';
import { selfieStep } from './selfie.js';
import type { HostedStep, StepName } from './step.js';

/** Each step of the hosted flow, one file each. */
export const HOSTED_STEPS: Record<StepName, HostedStep> = {
  document: documentStep,
  selfie: selfieStep,
  location: locationStep,
  licence: licenceStep,
};
