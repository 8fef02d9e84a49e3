// The design system's components (Preact). Their look is web/design/components.css; every page
// script builds from these rather than from raw elements.
import type { ComponentChildren, ComponentProps, JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

type ButtonProps = ComponentProps<'button'> & { variant?: 'primary' | 'secondary' | 'danger' };

/** A button; `variant` picks its tone (primary by default). It is type="button" unless told otherwise. */
export function Button({ variant = 'primary', type = 'button', class: extra, ...props }: ButtonProps) {
  return (
    <button
      type={type}
      class={[variant === 'primary' ? '' : variant, extra].filter(Boolean).join(' ') || undefined}
      {...props}
    />
  );
}

/** A labelled field: the label points at the control by `id`. */
export function Field({ id, label, children }: { id: string; label: string; children: ComponentChildren }) {
  return (
    <>
      <label for={id}>{label}</label>
      {children}
    </>
  );
}

export function Card({ children, ...props }: JSX.HTMLAttributes<HTMLElement> & { children: ComponentChildren }) {
  return (
    <section class="card" {...props}>
      {children}
    </section>
  );
}

/** An error the person must read (role=alert), or a status line. */
export function Message({ kind, children }: { kind: 'error' | 'notice' | 'ok'; children: ComponentChildren }) {
  return (
    <p class={kind} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </p>
  );
}

const GOOD = ['APPROVED', 'delivered', 'passed', 'active'];
const BAD = ['DECLINED', 'failed', 'deactivated', 'disabled'];
const WAITING = ['IN_REVIEW', 'review', 'pending', 'link_sent', 'invited'];
/** The tone of a status word: good, bad, waiting or neutral. */
export const pillTone = (value: string) =>
  GOOD.includes(value) ? 'pill--good' : BAD.includes(value) ? 'pill--bad' : WAITING.includes(value) ? 'pill--wait' : '';

export function Pill({ value }: { value: string }) {
  return <span class={`pill ${pillTone(value)}`.trim()}>{value}</span>;
}

export function Table({ heads, children }: { heads: string[]; children: ComponentChildren }) {
  return (
    <div class="table-scroll">
      <table>
        <thead>
          <tr>
            {heads.map((head) => (
              <th key={head}>{head}</th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

export function Pager({
  page,
  hasPrevious,
  hasNext,
  onPrevious,
  onNext,
}: {
  page: number;
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
}) {
  return (
    <div class="pager">
      <Button variant="secondary" disabled={!hasPrevious} onClick={onPrevious}>
        ‹ Previous
      </Button>
      <Button variant="secondary" disabled={!hasNext} onClick={onNext}>
        Next ›
      </Button>
      <span class="hint">page {page}</span>
    </div>
  );
}

/** A modal dialog (the browser's own, so focus and Escape work): shown while `open`. */
export function Dialog({
  open,
  title,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-label={title} onClose={onClose}>
      <h2>{title}</h2>
      {children}
    </dialog>
  );
}

/** A short status that goes away by itself. */
export function Toast({ children }: { children: ComponentChildren }) {
  return (
    <div class="toast" role="status" aria-live="polite">
      {children}
    </div>
  );
}

/** The camera's picture, mirrored like a mirror; shows `stream` once there is one. */
export function CameraView({
  stream,
  videoRef,
}: {
  stream: MediaStream | null;
  videoRef?: { current: HTMLVideoElement | null };
}) {
  const own = useRef<HTMLVideoElement>(null);
  const ref = videoRef ?? own;
  useEffect(() => {
    if (ref.current && ref.current.srcObject !== stream) ref.current.srcObject = stream;
  }, [stream]);
  return <video ref={ref} class="camera" autoplay playsInline muted />;
}
