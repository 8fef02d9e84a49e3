// Every string the hosted page shows, in English, Spanish, French and German. The server picks
// the first language from `ui_locales` (a query parameter of the link) or Accept-Language and
// writes it in <html lang>; the person can switch on the page (kept for this tab).
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { HOSTED_PAGE_LANGUAGES } from '../../src/core/vocabulary.js';

const en = {
  'start.title': 'Verify your identity for {project}',
  'start.intro': 'You will be asked to:',
  'start.step.document': 'take a photo of your ID document',
  'start.step.selfie': 'take a short selfie with a small head movement',
  'start.step.location': 'share your location once',
  'start.step.licence': 'enter your professional licence',
  'start.duration': 'It takes about {n} minutes.',
  'start.kept':
    'We keep the photos of your document and of your selfie while your verification is checked and for {days} days after the decision, so that the people at {project} who review verifications can look at them. Then they are deleted.',
  'start.consent': 'By starting, you agree that Verity checks these details for {project}.',
  'start.button': 'I agree, start',
  'start.logo': '{project} logo',
  'start.privacy': 'Privacy policy of {project}',
  'retry.document.expired': 'This document has expired. Take a photo of another, valid document.',
  'retry.licence.not_found': 'We could not find that licence. Check the number and the board, then try again.',
  'retry.location.permission_denied':
    'We need your location to continue. Allow it when your browser asks, then try again.',
  'retry.triesLeft': 'Tries left: {n}.',
  'ended.expired.title': 'This link has expired',
  'ended.expired.body': 'Verification links work for a limited time. Ask whoever sent it for a new one.',
  'ended.abandoned.title': 'This verification was not finished in time',
  'ended.abandoned.body':
    'It was started but not completed before its link expired. Ask whoever sent it for a new link to start again.',
  'ended.closed.title': 'This verification is already finished',
  'ended.closed.body': 'There is nothing more to do here. You can close this page.',
  'title.document': 'Photo of your ID document',
  'title.selfie': 'Take a selfie',
  'title.location': 'Share your location',
  'title.licence': 'Your professional licence',
  'error.no_face': 'We could not see your face clearly. Face the camera in good, even light and try again.',
  'error.challenge_expired': 'That took too long. Press the button and try again.',
  'error.unprocessable':
    'We could not read that photo. Make sure the whole document is in the frame, sharp and well lit.',
  'error.image_too_large': 'That photo is too large (over 20 MB). Try again with a smaller one.',
  'error.session_expired': 'This verification link has expired. Ask for a new one.',
  'error.session_closed': 'This verification is already complete.',
  'error.invalid_token': 'This verification link is not valid.',
  'error.token_missing': 'This verification link is incomplete. Open the full link you were sent.',
  'error.photo_too_dark': 'That photo is too dark. Turn on a light or move to a brighter place and retake it.',
  'error.network': 'The server did not answer. Check your connection and try again.',
  'error.generic': 'Something went wrong. Try again.',
  'gesture.turn_left': 'Slowly turn your head to your left',
  'gesture.turn_right': 'Slowly turn your head to your right',
  'gesture.look_up': 'Slowly look up',
  'gesture.blink': 'Blink a few times',
  'gesture.smile': 'Smile',
  'gesture.other': 'Move your head a little',
  'outcome.APPROVED': 'You are verified.',
  'outcome.DECLINED': 'We could not verify you.',
  'outcome.IN_REVIEW': 'Thanks: a person will review your verification.',
  'outcome.EXPIRED': 'This verification link has expired.',
  'outcome.ABANDONED': 'This verification was not finished in time.',
  'outcome.other': 'Thank you.',
  'page.loading': 'Loading…',
  'page.cannotOpen': 'We could not open this verification',
  'page.checking': 'Checking your details…',
  'page.takesAMoment': 'This takes a moment.',
  'page.complete': 'Verification complete',
  'page.takingBack': 'Taking you back…',
  'page.canClose': 'You can close this page.',
  'page.progress': 'Progress',
  'page.language': 'Language',
  'button.checking': 'Checking…',
  'button.tryAgain': 'Try again',
  'document.hint': 'Place the document on a dark, flat surface in good light, with all four corners visible.',
  'document.front': 'Front of the document',
  'document.back': 'Back of the document (if it has a barcode or text lines)',
  'document.continue': 'Continue',
  'document.needFront': 'Add a photo of the front of your document.',
  'phone.title': 'Continue on your phone',
  'phone.hint':
    'This device has no camera. Scan this code with your phone to continue there; this page follows along. The link works once, for 10 minutes.',
  'phone.qr': 'QR code of the link to continue on your phone',
  'phone.following.title': 'Continuing on your phone',
  'phone.following.hint': 'Finish on your phone. This page follows your progress and shows the result.',
  'ended.handoff.title': 'This link was already used',
  'ended.handoff.body':
    'A link to continue on your phone works once, for 10 minutes. Scan the new code on your other device.',
  'document.cameraHint':
    'Hold your document inside the frame, in good light. The photo is taken by itself when it is sharp.',
  'document.orUpload': 'Or upload a photo',
  'document.preview': 'The photo of your document',
  'document.previewHint': 'Is the whole document in the photo, sharp and without reflections?',
  'document.retake': 'Retake',
  'document.use': 'Use this photo',
  'guide.searching': 'Place your document inside the frame',
  'guide.too_dark': 'Too dark: move to a brighter place',
  'guide.glare': 'Glare: tilt the document away from the light',
  'guide.too_far': 'Too far: bring the document closer',
  'guide.too_close': 'Too close: all four corners must be inside the frame',
  'guide.hold_still': 'Hold still',
  'guide.ready': 'Good: hold it there',
  'selfie.hint':
    'Hold the phone at eye level in good light. When you press the button we ask for a small movement and take a few frames.',
  'selfie.take': 'Take selfie',
  'selfie.recording': 'Recording…',
  'selfie.getReady': 'Get ready…',
  'selfie.tooDark': 'Your face is too dark. Turn on a light or face a window, then try again.',
  'selfie.noCamera':
    'We need your camera for the selfie. Allow camera access in your browser settings and reload this page.',
  'location.hintGeofence': 'We check that you are where this verification expects you to be.',
  'location.hint': 'We record where this verification took place.',
  'location.share': 'Share my location',
  'location.locating': 'Locating…',
  'licence.state': 'State',
  'licence.chooseState': 'Choose a state',
  'licence.board': 'Licensing board',
  'licence.chooseBoard': 'Choose a board',
  'licence.chooseStateFirst': 'Choose the state first',
  'licence.first': 'First name',
  'licence.last': 'Last name',
  'licence.number': 'Licence number',
  'licence.check': 'Check my licence',
  'licence.missing': 'Fill in the state, the board, your name and the licence number.',
  'start.keptOneDay':
    'We keep the photos of your document and of your selfie while your verification is checked and for 1 day after the decision, so that the people at {project} who review verifications can look at them. Then they are deleted.',
  'start.keptNone':
    'Your photos are used for these checks and deleted as soon as the decision is made; no one looks at them afterwards.',
  'start.shared':
    '{project} receives the result and the details read from your document (such as your name, date of birth and document number).',
  'test.banner': 'Test mode',
  'test.hint':
    'This session was made with a test key: it verifies no one. Pick its outcome here, or do the steps to run the real checks (each document or selfie counts against the daily test allowance).',
  'test.picker': 'Test outcome',
  'test.approve': 'Approve',
  'test.decline': 'Decline',
  'test.review': 'Send to review',
  'test.error': 'Error to answer with',
  'test.answerError': 'Answer with this error',
  'retry.selfie.spoof':
    'We could not confirm that a live person is in front of the camera. Hold your phone at eye level in good light, with only your face in the frame, and do the movement in one go.',
  'retry.selfie.gesture_not_performed':
    'We did not see the movement we asked for. Read the instruction, then do it slowly while the frames are taken.',
  'retry.selfie.different_people': 'We saw more than one person. Make sure only you are in front of the camera.',
  'retry.selfie.face_mismatch':
    'This face does not match the one on record for you. Take the selfie yourself, facing the camera.',
  'retry.selfie.other': 'We could not confirm your selfie. Face the camera in good light and try again.',
  'error.rate_limited': 'Too many tries in a short time. Wait a minute, then try again.',
  'error.not_found': 'This step is not part of this verification. Reload the page.',
  'error.conflict': 'This step is already done. Reload the page to continue.',
  'error.validation_error': 'Something was missing from what we received. Try again.',
  'error.unsupported_media_type': 'We could not read what your browser sent. Reload the page and try again.',
  'error.no_images_provided': 'Add a photo of your document.',
  'error.invalid_frames':
    'The selfie was not taken in one go. Press the button and hold the phone still until it is done.',
  'error.too_many_frames':
    'The selfie was not taken in one go. Press the button and hold the phone still until it is done.',
  'error.invalid_challenge': 'That took too long. Press the button and try again.',
  'error.engine_unreachable': 'Our checks are busy right now. Wait a moment and try again.',
  'error.internal_error': 'Something went wrong on our side. Try again in a moment.',
  'error.payload_too_large': 'That photo is too large. Try again with a smaller one.',
  'document.shutter': 'Take photo',
  'guide.orShoot': 'If it stays like this, take the photo with the button.',
  'camera.opening': 'Opening the camera…',
  'phone.copy': 'Copy link',
  'phone.copied': 'Link copied. Open it on your phone.',
  'phone.link': 'Link to continue on your phone',
  'progress.item': 'Step {n} of {total}: {title} ({state})',
  'progress.passed': 'done',
  'progress.failed': 'not confirmed',
  'progress.review': 'sent to a person',
  'progress.not_run': 'not done',
  'progress.current': 'current step',
  'progress.todo': 'to do',
  'end.steps': 'Your steps',
  'end.next.DECLINED':
    'What now: {project} has been told the result. If you think this is a mistake, or you want to try again, contact {project}.',
  'end.next.IN_REVIEW': '{project} will tell you the result once a person has looked at it.',
  'end.support': 'Contact {project}',
};

export type MessageKey = keyof typeof en;
type Catalog = Record<MessageKey, string>;

const es: Catalog = {
  'start.title': 'Verifica tu identidad para {project}',
  'start.intro': 'Te pediremos:',
  'start.step.document': 'una foto de tu documento de identidad',
  'start.step.selfie': 'un selfi corto con un pequeño movimiento de cabeza',
  'start.step.location': 'compartir tu ubicación una vez',
  'start.step.licence': 'los datos de tu licencia profesional',
  'start.duration': 'Se tarda unos {n} minutos.',
  'start.kept':
    'Guardamos las fotos de tu documento y de tu selfi mientras se revisa tu verificación y durante {days} días después de la decisión, para que las personas de {project} que revisan verificaciones puedan verlas. Después se borran.',
  'start.consent': 'Al empezar, aceptas que Verity compruebe estos datos para {project}.',
  'start.button': 'Acepto, empezar',
  'start.logo': 'Logotipo de {project}',
  'start.privacy': 'Política de privacidad de {project}',
  'retry.document.expired': 'Este documento ha caducado. Haz una foto de otro documento válido.',
  'retry.licence.not_found': 'No encontramos esa licencia. Revisa el número y el organismo e inténtalo de nuevo.',
  'retry.location.permission_denied':
    'Necesitamos tu ubicación para continuar. Permítela cuando el navegador te lo pida e inténtalo de nuevo.',
  'retry.triesLeft': 'Intentos restantes: {n}.',
  'ended.expired.title': 'Este enlace ha caducado',
  'ended.expired.body': 'Los enlaces de verificación duran un tiempo limitado. Pide uno nuevo a quien te lo envió.',
  'ended.abandoned.title': 'Esta verificación no se terminó a tiempo',
  'ended.abandoned.body':
    'Se empezó pero no se completó antes de que caducara el enlace. Pide un enlace nuevo a quien te lo envió para empezar otra vez.',
  'ended.closed.title': 'Esta verificación ya está terminada',
  'ended.closed.body': 'No hay nada más que hacer aquí. Ya puedes cerrar esta página.',
  'title.document': 'Foto de tu documento de identidad',
  'title.selfie': 'Hazte un selfi',
  'title.location': 'Comparte tu ubicación',
  'title.licence': 'Tu licencia profesional',
  'error.no_face': 'No vimos bien tu cara. Mira a la cámara con una luz buena y uniforme e inténtalo de nuevo.',
  'error.challenge_expired': 'Tardó demasiado. Pulsa el botón e inténtalo de nuevo.',
  'error.unprocessable':
    'No pudimos leer esa foto. Asegúrate de que el documento entero esté en la imagen, nítido y bien iluminado.',
  'error.image_too_large': 'Esa foto es demasiado grande (más de 20 MB). Inténtalo con una más pequeña.',
  'error.session_expired': 'Este enlace de verificación ha caducado. Pide uno nuevo.',
  'error.session_closed': 'Esta verificación ya está terminada.',
  'error.invalid_token': 'Este enlace de verificación no es válido.',
  'error.token_missing': 'Este enlace de verificación está incompleto. Abre el enlace completo que te enviaron.',
  'error.photo_too_dark': 'Esa foto está demasiado oscura. Enciende una luz o ve a un sitio más iluminado y repítela.',
  'error.network': 'El servidor no respondió. Comprueba tu conexión e inténtalo de nuevo.',
  'error.generic': 'Algo salió mal. Inténtalo de nuevo.',
  'gesture.turn_left': 'Gira la cabeza despacio hacia tu izquierda',
  'gesture.turn_right': 'Gira la cabeza despacio hacia tu derecha',
  'gesture.look_up': 'Mira despacio hacia arriba',
  'gesture.blink': 'Parpadea varias veces',
  'gesture.smile': 'Sonríe',
  'gesture.other': 'Mueve un poco la cabeza',
  'outcome.APPROVED': 'Estás verificado.',
  'outcome.DECLINED': 'No pudimos verificarte.',
  'outcome.IN_REVIEW': 'Gracias: una persona revisará tu verificación.',
  'outcome.EXPIRED': 'Este enlace de verificación ha caducado.',
  'outcome.ABANDONED': 'Esta verificación no se terminó a tiempo.',
  'outcome.other': 'Gracias.',
  'page.loading': 'Cargando…',
  'page.cannotOpen': 'No pudimos abrir esta verificación',
  'page.checking': 'Comprobando tus datos…',
  'page.takesAMoment': 'Esto tarda un momento.',
  'page.complete': 'Verificación terminada',
  'page.takingBack': 'Te llevamos de vuelta…',
  'page.canClose': 'Ya puedes cerrar esta página.',
  'page.progress': 'Progreso',
  'page.language': 'Idioma',
  'button.checking': 'Comprobando…',
  'button.tryAgain': 'Intentar de nuevo',
  'document.hint':
    'Pon el documento sobre una superficie oscura y plana, con buena luz y las cuatro esquinas visibles.',
  'document.front': 'Parte delantera del documento',
  'document.back': 'Parte trasera del documento (si tiene código de barras o líneas de texto)',
  'document.continue': 'Continuar',
  'document.needFront': 'Añade una foto de la parte delantera de tu documento.',
  'phone.title': 'Continúa en tu móvil',
  'phone.hint':
    'Este dispositivo no tiene cámara. Escanea este código con tu móvil para continuar allí; esta página sigue tu avance. El enlace sirve una vez, durante 10 minutos.',
  'phone.qr': 'Código QR del enlace para continuar en tu móvil',
  'phone.following.title': 'Continuando en tu móvil',
  'phone.following.hint': 'Termina en tu móvil. Esta página sigue tu avance y muestra el resultado.',
  'ended.handoff.title': 'Este enlace ya se usó',
  'ended.handoff.body':
    'Un enlace para continuar en el móvil sirve una vez, durante 10 minutos. Escanea el código nuevo en tu otro dispositivo.',
  'document.cameraHint':
    'Sostén tu documento dentro del marco, con buena luz. La foto se hace sola cuando está nítida.',
  'document.orUpload': 'O sube una foto',
  'document.preview': 'La foto de tu documento',
  'document.previewHint': '¿Se ve el documento entero, nítido y sin reflejos?',
  'document.retake': 'Repetir',
  'document.use': 'Usar esta foto',
  'guide.searching': 'Coloca tu documento dentro del marco',
  'guide.too_dark': 'Demasiado oscuro: ve a un sitio más iluminado',
  'guide.glare': 'Reflejos: inclina el documento para apartarlo de la luz',
  'guide.too_far': 'Demasiado lejos: acerca el documento',
  'guide.too_close': 'Demasiado cerca: las cuatro esquinas deben quedar dentro del marco',
  'guide.hold_still': 'No te muevas',
  'guide.ready': 'Bien: mantenlo así',
  'selfie.hint':
    'Sujeta el teléfono a la altura de los ojos, con buena luz. Al pulsar el botón te pedimos un pequeño movimiento y tomamos unas imágenes.',
  'selfie.take': 'Hacer selfi',
  'selfie.recording': 'Grabando…',
  'selfie.getReady': 'Prepárate…',
  'selfie.tooDark':
    'Tu cara está demasiado oscura. Enciende una luz o ponte frente a una ventana e inténtalo de nuevo.',
  'selfie.noCamera':
    'Necesitamos tu cámara para el selfi. Permite el acceso a la cámara en los ajustes del navegador y vuelve a cargar esta página.',
  'location.hintGeofence': 'Comprobamos que estás donde esta verificación espera que estés.',
  'location.hint': 'Registramos dónde se hizo esta verificación.',
  'location.share': 'Compartir mi ubicación',
  'location.locating': 'Localizando…',
  'licence.state': 'Estado',
  'licence.chooseState': 'Elige un estado',
  'licence.board': 'Organismo que la emite',
  'licence.chooseBoard': 'Elige un organismo',
  'licence.chooseStateFirst': 'Elige antes el estado',
  'licence.first': 'Nombre',
  'licence.last': 'Apellidos',
  'licence.number': 'Número de licencia',
  'licence.check': 'Comprobar mi licencia',
  'licence.missing': 'Rellena el estado, el organismo, tu nombre y el número de licencia.',
  'start.keptOneDay':
    'Guardamos las fotos de tu documento y de tu selfi mientras se revisa tu verificación y durante 1 día después de la decisión, para que las personas de {project} que revisan verificaciones puedan verlas. Después se borran.',
  'start.keptNone':
    'Tus fotos se usan para estas comprobaciones y se borran en cuanto se toma la decisión; nadie las ve después.',
  'start.shared':
    '{project} recibe el resultado y los datos leídos de tu documento (como tu nombre, fecha de nacimiento y número de documento).',
  'test.banner': 'Modo de prueba',
  'test.hint':
    'Esta sesión se creó con una clave de prueba: no verifica a nadie. Elige aquí su resultado o haz los pasos para ejecutar las comprobaciones reales (cada documento o selfi cuenta para el cupo diario de pruebas).',
  'test.picker': 'Resultado de prueba',
  'test.approve': 'Aprobar',
  'test.decline': 'Rechazar',
  'test.review': 'Enviar a revisión',
  'test.error': 'Error con el que responder',
  'test.answerError': 'Responder con este error',
  'retry.selfie.spoof':
    'No pudimos confirmar que haya una persona real delante de la cámara. Sujeta el teléfono a la altura de los ojos, con buena luz, con solo tu cara en la imagen, y haz el movimiento de una vez.',
  'retry.selfie.gesture_not_performed':
    'No vimos el movimiento que te pedimos. Lee la indicación y hazlo despacio mientras se toman las imágenes.',
  'retry.selfie.different_people': 'Vimos a más de una persona. Asegúrate de que solo tú estás delante de la cámara.',
  'retry.selfie.face_mismatch':
    'Esta cara no coincide con la que tenemos registrada para ti. Hazte el selfi tú, mirando a la cámara.',
  'retry.selfie.other': 'No pudimos confirmar tu selfi. Mira a la cámara con buena luz e inténtalo de nuevo.',
  'error.rate_limited': 'Demasiados intentos en poco tiempo. Espera un minuto e inténtalo de nuevo.',
  'error.not_found': 'Este paso no forma parte de esta verificación. Vuelve a cargar la página.',
  'error.conflict': 'Este paso ya está hecho. Vuelve a cargar la página para continuar.',
  'error.validation_error': 'Faltaba algo en lo que recibimos. Inténtalo de nuevo.',
  'error.unsupported_media_type':
    'No pudimos leer lo que envió tu navegador. Vuelve a cargar la página e inténtalo de nuevo.',
  'error.no_images_provided': 'Añade una foto de tu documento.',
  'error.invalid_frames':
    'El selfi no se hizo de una vez. Pulsa el botón y mantén el teléfono quieto hasta que termine.',
  'error.too_many_frames':
    'El selfi no se hizo de una vez. Pulsa el botón y mantén el teléfono quieto hasta que termine.',
  'error.invalid_challenge': 'Tardó demasiado. Pulsa el botón e inténtalo de nuevo.',
  'error.engine_unreachable':
    'Nuestras comprobaciones están ocupadas ahora mismo. Espera un momento e inténtalo de nuevo.',
  'error.internal_error': 'Algo falló por nuestra parte. Inténtalo de nuevo en un momento.',
  'error.payload_too_large': 'Esa foto es demasiado grande. Inténtalo con una más pequeña.',
  'document.shutter': 'Hacer la foto',
  'guide.orShoot': 'Si sigue así, haz la foto con el botón.',
  'camera.opening': 'Abriendo la cámara…',
  'phone.copy': 'Copiar enlace',
  'phone.copied': 'Enlace copiado. Ábrelo en tu móvil.',
  'phone.link': 'Enlace para continuar en tu móvil',
  'progress.item': 'Paso {n} de {total}: {title} ({state})',
  'progress.passed': 'hecho',
  'progress.failed': 'no confirmado',
  'progress.review': 'enviado a una persona',
  'progress.not_run': 'no realizado',
  'progress.current': 'paso actual',
  'progress.todo': 'pendiente',
  'end.steps': 'Tus pasos',
  'end.next.DECLINED':
    'Y ahora: {project} ya tiene el resultado. Si crees que es un error o quieres intentarlo de nuevo, ponte en contacto con {project}.',
  'end.next.IN_REVIEW': '{project} te dirá el resultado cuando una persona lo haya revisado.',
  'end.support': 'Contactar con {project}',
};

const fr: Catalog = {
  'start.title': 'Vérifiez votre identité pour {project}',
  'start.intro': 'Nous allons vous demander de :',
  'start.step.document': "prendre en photo votre pièce d'identité",
  'start.step.selfie': 'prendre un court selfie avec un petit mouvement de tête',
  'start.step.location': 'partager votre position une fois',
  'start.step.licence': 'indiquer votre licence professionnelle',
  'start.duration': 'Cela prend environ {n} minutes.',
  'start.kept':
    "Nous conservons les photos de votre document et de votre selfie pendant l'examen de votre vérification et {days} jours après la décision, pour que les personnes de {project} qui examinent les vérifications puissent les voir. Elles sont ensuite supprimées.",
  'start.consent': 'En commençant, vous acceptez que Verity vérifie ces informations pour {project}.',
  'start.button': "J'accepte, commencer",
  'start.logo': 'Logo de {project}',
  'start.privacy': 'Politique de confidentialité de {project}',
  'retry.document.expired': 'Ce document a expiré. Prenez en photo un autre document valide.',
  'retry.licence.not_found':
    "Nous n'avons pas trouvé cette licence. Vérifiez le numéro et l'organisme, puis réessayez.",
  'retry.location.permission_denied':
    'Nous avons besoin de votre position pour continuer. Autorisez-la quand le navigateur vous le demande, puis réessayez.',
  'retry.triesLeft': 'Essais restants : {n}.',
  'ended.expired.title': 'Ce lien a expiré',
  'ended.expired.body':
    "Les liens de vérification sont valables un temps limité. Demandez-en un nouveau à la personne qui vous l'a envoyé.",
  'ended.abandoned.title': "Cette vérification n'a pas été terminée à temps",
  'ended.abandoned.body':
    "Elle a été commencée mais pas terminée avant l'expiration du lien. Demandez un nouveau lien à la personne qui vous l'a envoyé pour recommencer.",
  'ended.closed.title': 'Cette vérification est déjà terminée',
  'ended.closed.body': "Il n'y a plus rien à faire ici. Vous pouvez fermer cette page.",
  'title.document': "Photo de votre pièce d'identité",
  'title.selfie': 'Prenez un selfie',
  'title.location': 'Partagez votre position',
  'title.licence': 'Votre licence professionnelle',
  'error.no_face':
    "Nous n'avons pas bien vu votre visage. Placez-vous face à la caméra, sous une lumière bonne et uniforme, puis réessayez.",
  'error.challenge_expired': 'Cela a pris trop de temps. Appuyez sur le bouton et réessayez.',
  'error.unprocessable':
    "Nous n'avons pas pu lire cette photo. Vérifiez que tout le document est dans l'image, net et bien éclairé.",
  'error.image_too_large': 'Cette photo est trop lourde (plus de 20 Mo). Réessayez avec une photo plus petite.',
  'error.session_expired': 'Ce lien de vérification a expiré. Demandez-en un nouveau.',
  'error.session_closed': 'Cette vérification est déjà terminée.',
  'error.invalid_token': "Ce lien de vérification n'est pas valide.",
  'error.token_missing': 'Ce lien de vérification est incomplet. Ouvrez le lien complet que vous avez reçu.',
  'error.photo_too_dark':
    'Cette photo est trop sombre. Allumez une lumière ou allez dans un endroit plus clair, puis reprenez-la.',
  'error.network': "Le serveur n'a pas répondu. Vérifiez votre connexion et réessayez.",
  'error.generic': "Une erreur s'est produite. Réessayez.",
  'gesture.turn_left': 'Tournez lentement la tête vers votre gauche',
  'gesture.turn_right': 'Tournez lentement la tête vers votre droite',
  'gesture.look_up': 'Levez lentement les yeux',
  'gesture.blink': 'Clignez des yeux plusieurs fois',
  'gesture.smile': 'Souriez',
  'gesture.other': 'Bougez un peu la tête',
  'outcome.APPROVED': 'Vous êtes vérifié.',
  'outcome.DECLINED': "Nous n'avons pas pu vous vérifier.",
  'outcome.IN_REVIEW': 'Merci : une personne va examiner votre vérification.',
  'outcome.EXPIRED': 'Ce lien de vérification a expiré.',
  'outcome.ABANDONED': "Cette vérification n'a pas été terminée à temps.",
  'outcome.other': 'Merci.',
  'page.loading': 'Chargement…',
  'page.cannotOpen': "Nous n'avons pas pu ouvrir cette vérification",
  'page.checking': 'Vérification de vos informations…',
  'page.takesAMoment': 'Cela prend un instant.',
  'page.complete': 'Vérification terminée',
  'page.takingBack': 'Nous vous ramenons…',
  'page.canClose': 'Vous pouvez fermer cette page.',
  'page.progress': 'Progression',
  'page.language': 'Langue',
  'button.checking': 'Vérification…',
  'button.tryAgain': 'Réessayer',
  'document.hint': 'Posez le document sur une surface sombre et plane, bien éclairée, avec les quatre coins visibles.',
  'document.front': 'Recto du document',
  'document.back': 'Verso du document (s’il porte un code-barres ou des lignes de texte)',
  'document.continue': 'Continuer',
  'document.needFront': 'Ajoutez une photo du recto de votre document.',
  'phone.title': 'Continuer sur votre téléphone',
  'phone.hint':
    "Cet appareil n'a pas de caméra. Scannez ce code avec votre téléphone pour continuer dessus ; cette page suit votre progression. Le lien fonctionne une fois, pendant 10 minutes.",
  'phone.qr': 'Code QR du lien pour continuer sur votre téléphone',
  'phone.following.title': 'Suite sur votre téléphone',
  'phone.following.hint': 'Terminez sur votre téléphone. Cette page suit votre progression et affiche le résultat.',
  'ended.handoff.title': 'Ce lien a déjà été utilisé',
  'ended.handoff.body':
    'Un lien pour continuer sur le téléphone fonctionne une fois, pendant 10 minutes. Scannez le nouveau code sur votre autre appareil.',
  'document.cameraHint':
    'Tenez votre document dans le cadre, avec une bonne lumière. La photo est prise toute seule quand elle est nette.',
  'document.orUpload': 'Ou importez une photo',
  'document.preview': 'La photo de votre document',
  'document.previewHint': 'Le document est-il entier sur la photo, net et sans reflets ?',
  'document.retake': 'Reprendre',
  'document.use': 'Utiliser cette photo',
  'guide.searching': 'Placez votre document dans le cadre',
  'guide.too_dark': 'Trop sombre : allez dans un endroit plus éclairé',
  'guide.glare': 'Reflets : inclinez le document pour l’éloigner de la lumière',
  'guide.too_far': 'Trop loin : rapprochez le document',
  'guide.too_close': 'Trop près : les quatre coins doivent être dans le cadre',
  'guide.hold_still': 'Ne bougez plus',
  'guide.ready': 'Bien : gardez cette position',
  'selfie.hint':
    'Tenez le téléphone à hauteur des yeux, avec une bonne lumière. Quand vous appuyez sur le bouton, nous demandons un petit mouvement et prenons quelques images.',
  'selfie.take': 'Prendre le selfie',
  'selfie.recording': 'Enregistrement…',
  'selfie.getReady': 'Préparez-vous…',
  'selfie.tooDark':
    'Votre visage est trop sombre. Allumez une lumière ou placez-vous face à une fenêtre, puis réessayez.',
  'selfie.noCamera':
    "Nous avons besoin de votre caméra pour le selfie. Autorisez l'accès à la caméra dans les réglages du navigateur et rechargez cette page.",
  'location.hintGeofence': 'Nous vérifions que vous êtes là où cette vérification vous attend.',
  'location.hint': "Nous enregistrons l'endroit où cette vérification a eu lieu.",
  'location.share': 'Partager ma position',
  'location.locating': 'Localisation…',
  'licence.state': 'État',
  'licence.chooseState': 'Choisissez un État',
  'licence.board': 'Organisme de délivrance',
  'licence.chooseBoard': 'Choisissez un organisme',
  'licence.chooseStateFirst': "Choisissez d'abord l'État",
  'licence.first': 'Prénom',
  'licence.last': 'Nom',
  'licence.number': 'Numéro de licence',
  'licence.check': 'Vérifier ma licence',
  'licence.missing': "Indiquez l'État, l'organisme, votre nom et le numéro de licence.",
  'start.keptOneDay':
    "Nous conservons les photos de votre document et de votre selfie pendant l'examen de votre vérification et 1 jour après la décision, pour que les personnes de {project} qui examinent les vérifications puissent les voir. Elles sont ensuite supprimées.",
  'start.keptNone':
    'Vos photos servent à ces vérifications et sont supprimées dès que la décision est prise ; personne ne les voit ensuite.',
  'start.shared':
    '{project} reçoit le résultat et les informations lues sur votre document (comme votre nom, votre date de naissance et le numéro du document).',
  'test.banner': 'Mode test',
  'test.hint':
    'Cette session a été créée avec une clé de test : elle ne vérifie personne. Choisissez son résultat ici, ou faites les étapes pour lancer les vraies vérifications (chaque document ou selfie compte dans le quota de test quotidien).',
  'test.picker': 'Résultat de test',
  'test.approve': 'Approuver',
  'test.decline': 'Refuser',
  'test.review': 'Envoyer en examen',
  'test.error': 'Erreur à renvoyer',
  'test.answerError': 'Renvoyer cette erreur',
  'retry.selfie.spoof':
    "Nous n'avons pas pu confirmer qu'une personne réelle est devant la caméra. Tenez le téléphone à hauteur des yeux, avec une bonne lumière, seul votre visage dans l'image, et faites le mouvement d'un seul geste.",
  'retry.selfie.gesture_not_performed':
    "Nous n'avons pas vu le mouvement demandé. Lisez la consigne, puis faites-le lentement pendant la prise des images.",
  'retry.selfie.different_people': "Nous avons vu plus d'une personne. Assurez-vous d'être seul devant la caméra.",
  'retry.selfie.face_mismatch':
    'Ce visage ne correspond pas à celui que nous avons pour vous. Prenez le selfie vous-même, face à la caméra.',
  'retry.selfie.other':
    "Nous n'avons pas pu confirmer votre selfie. Placez-vous face à la caméra, avec une bonne lumière, et réessayez.",
  'error.rate_limited': 'Trop de tentatives en peu de temps. Attendez une minute, puis réessayez.',
  'error.not_found': 'Cette étape ne fait pas partie de cette vérification. Rechargez la page.',
  'error.conflict': 'Cette étape est déjà faite. Rechargez la page pour continuer.',
  'error.validation_error': 'Il manquait quelque chose dans ce que nous avons reçu. Réessayez.',
  'error.unsupported_media_type':
    "Nous n'avons pas pu lire ce que votre navigateur a envoyé. Rechargez la page et réessayez.",
  'error.no_images_provided': 'Ajoutez une photo de votre document.',
  'error.invalid_frames':
    "Le selfie n'a pas été pris d'un seul coup. Appuyez sur le bouton et gardez le téléphone immobile jusqu'à la fin.",
  'error.too_many_frames':
    "Le selfie n'a pas été pris d'un seul coup. Appuyez sur le bouton et gardez le téléphone immobile jusqu'à la fin.",
  'error.invalid_challenge': 'Cela a pris trop de temps. Appuyez sur le bouton et réessayez.',
  'error.engine_unreachable': 'Nos vérifications sont très sollicitées en ce moment. Attendez un instant et réessayez.',
  'error.internal_error': 'Un problème est survenu de notre côté. Réessayez dans un instant.',
  'error.payload_too_large': 'Cette photo est trop lourde. Réessayez avec une photo plus petite.',
  'document.shutter': 'Prendre la photo',
  'guide.orShoot': 'Si cela ne change pas, prenez la photo avec le bouton.',
  'camera.opening': 'Ouverture de la caméra…',
  'phone.copy': 'Copier le lien',
  'phone.copied': 'Lien copié. Ouvrez-le sur votre téléphone.',
  'phone.link': 'Lien pour continuer sur votre téléphone',
  'progress.item': 'Étape {n} sur {total} : {title} ({state})',
  'progress.passed': 'faite',
  'progress.failed': 'non confirmée',
  'progress.review': 'transmise à une personne',
  'progress.not_run': 'non faite',
  'progress.current': 'étape en cours',
  'progress.todo': 'à faire',
  'end.steps': 'Vos étapes',
  'end.next.DECLINED':
    "Et maintenant : {project} a reçu le résultat. Si vous pensez qu'il s'agit d'une erreur, ou si vous voulez réessayer, contactez {project}.",
  'end.next.IN_REVIEW': "{project} vous communiquera le résultat dès qu'une personne l'aura examiné.",
  'end.support': 'Contacter {project}',
};

const de: Catalog = {
  'start.title': 'Bestätigen Sie Ihre Identität für {project}',
  'start.intro': 'Wir bitten Sie:',
  'start.step.document': 'Ihr Ausweisdokument zu fotografieren',
  'start.step.selfie': 'ein kurzes Selfie mit einer kleinen Kopfbewegung aufzunehmen',
  'start.step.location': 'einmal Ihren Standort zu teilen',
  'start.step.licence': 'Ihre Berufszulassung anzugeben',
  'start.duration': 'Das dauert etwa {n} Minuten.',
  'start.kept':
    'Wir bewahren die Fotos Ihres Dokuments und Ihres Selfies auf, solange Ihre Verifizierung geprüft wird, und {days} Tage nach der Entscheidung, damit die Personen bei {project}, die Verifizierungen prüfen, sie ansehen können. Danach werden sie gelöscht.',
  'start.consent': 'Mit dem Start stimmen Sie zu, dass Verity diese Angaben für {project} prüft.',
  'start.button': 'Zustimmen und starten',
  'start.logo': 'Logo von {project}',
  'start.privacy': 'Datenschutzerklärung von {project}',
  'retry.document.expired': 'Dieses Dokument ist abgelaufen. Fotografieren Sie ein anderes, gültiges Dokument.',
  'retry.licence.not_found':
    'Wir konnten diese Zulassung nicht finden. Prüfen Sie Nummer und Behörde und versuchen Sie es erneut.',
  'retry.location.permission_denied':
    'Wir brauchen Ihren Standort, um fortzufahren. Erlauben Sie ihn, wenn der Browser fragt, und versuchen Sie es erneut.',
  'retry.triesLeft': 'Verbleibende Versuche: {n}.',
  'ended.expired.title': 'Dieser Link ist abgelaufen',
  'ended.expired.body': 'Verifizierungslinks gelten nur begrenzte Zeit. Bitten Sie den Absender um einen neuen.',
  'ended.abandoned.title': 'Diese Verifizierung wurde nicht rechtzeitig abgeschlossen',
  'ended.abandoned.body':
    'Sie wurde begonnen, aber nicht beendet, bevor der Link ablief. Bitten Sie den Absender um einen neuen Link, um neu zu beginnen.',
  'ended.closed.title': 'Diese Verifizierung ist bereits abgeschlossen',
  'ended.closed.body': 'Hier ist nichts mehr zu tun. Sie können diese Seite schließen.',
  'title.document': 'Foto Ihres Ausweisdokuments',
  'title.selfie': 'Machen Sie ein Selfie',
  'title.location': 'Teilen Sie Ihren Standort',
  'title.licence': 'Ihre Berufszulassung',
  'error.no_face':
    'Wir konnten Ihr Gesicht nicht deutlich sehen. Schauen Sie bei gutem, gleichmäßigem Licht in die Kamera und versuchen Sie es erneut.',
  'error.challenge_expired': 'Das hat zu lange gedauert. Tippen Sie auf die Schaltfläche und versuchen Sie es erneut.',
  'error.unprocessable':
    'Wir konnten das Foto nicht lesen. Achten Sie darauf, dass das ganze Dokument scharf und gut beleuchtet im Bild ist.',
  'error.image_too_large': 'Das Foto ist zu groß (über 20 MB). Versuchen Sie es mit einem kleineren.',
  'error.session_expired': 'Dieser Verifizierungslink ist abgelaufen. Fordern Sie einen neuen an.',
  'error.session_closed': 'Diese Verifizierung ist bereits abgeschlossen.',
  'error.invalid_token': 'Dieser Verifizierungslink ist ungültig.',
  'error.token_missing':
    'Dieser Verifizierungslink ist unvollständig. Öffnen Sie den vollständigen Link, den Sie erhalten haben.',
  'error.photo_too_dark':
    'Das Foto ist zu dunkel. Schalten Sie ein Licht ein oder gehen Sie an einen helleren Ort und nehmen Sie es erneut auf.',
  'error.network': 'Der Server hat nicht geantwortet. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
  'error.generic': 'Etwas ist schiefgelaufen. Versuchen Sie es erneut.',
  'gesture.turn_left': 'Drehen Sie den Kopf langsam nach links',
  'gesture.turn_right': 'Drehen Sie den Kopf langsam nach rechts',
  'gesture.look_up': 'Schauen Sie langsam nach oben',
  'gesture.blink': 'Blinzeln Sie ein paar Mal',
  'gesture.smile': 'Lächeln Sie',
  'gesture.other': 'Bewegen Sie den Kopf ein wenig',
  'outcome.APPROVED': 'Sie sind verifiziert.',
  'outcome.DECLINED': 'Wir konnten Sie nicht verifizieren.',
  'outcome.IN_REVIEW': 'Danke: Eine Person prüft Ihre Verifizierung.',
  'outcome.EXPIRED': 'Dieser Verifizierungslink ist abgelaufen.',
  'outcome.ABANDONED': 'Diese Verifizierung wurde nicht rechtzeitig abgeschlossen.',
  'outcome.other': 'Vielen Dank.',
  'page.loading': 'Wird geladen…',
  'page.cannotOpen': 'Wir konnten diese Verifizierung nicht öffnen',
  'page.checking': 'Ihre Angaben werden geprüft…',
  'page.takesAMoment': 'Das dauert einen Moment.',
  'page.complete': 'Verifizierung abgeschlossen',
  'page.takingBack': 'Wir leiten Sie zurück…',
  'page.canClose': 'Sie können diese Seite schließen.',
  'page.progress': 'Fortschritt',
  'page.language': 'Sprache',
  'button.checking': 'Wird geprüft…',
  'button.tryAgain': 'Erneut versuchen',
  'document.hint':
    'Legen Sie das Dokument bei gutem Licht auf eine dunkle, ebene Fläche, sodass alle vier Ecken zu sehen sind.',
  'document.front': 'Vorderseite des Dokuments',
  'document.back': 'Rückseite des Dokuments (falls sie einen Barcode oder Textzeilen hat)',
  'document.continue': 'Weiter',
  'document.needFront': 'Fügen Sie ein Foto der Vorderseite Ihres Dokuments hinzu.',
  'phone.title': 'Auf dem Telefon fortfahren',
  'phone.hint':
    'Dieses Gerät hat keine Kamera. Scannen Sie diesen Code mit Ihrem Telefon, um dort fortzufahren; diese Seite verfolgt Ihren Fortschritt. Der Link funktioniert einmal, 10 Minuten lang.',
  'phone.qr': 'QR-Code des Links zum Fortfahren auf dem Telefon',
  'phone.following.title': 'Weiter auf Ihrem Telefon',
  'phone.following.hint':
    'Schließen Sie auf Ihrem Telefon ab. Diese Seite verfolgt Ihren Fortschritt und zeigt das Ergebnis.',
  'ended.handoff.title': 'Dieser Link wurde bereits verwendet',
  'ended.handoff.body':
    'Ein Link zum Fortfahren auf dem Telefon funktioniert einmal, 10 Minuten lang. Scannen Sie den neuen Code auf Ihrem anderen Gerät.',
  'document.cameraHint':
    'Halten Sie Ihr Dokument bei gutem Licht in den Rahmen. Das Foto wird von selbst aufgenommen, sobald es scharf ist.',
  'document.orUpload': 'Oder ein Foto hochladen',
  'document.preview': 'Das Foto Ihres Dokuments',
  'document.previewHint': 'Ist das ganze Dokument auf dem Foto, scharf und ohne Spiegelungen?',
  'document.retake': 'Neu aufnehmen',
  'document.use': 'Dieses Foto verwenden',
  'guide.searching': 'Legen Sie Ihr Dokument in den Rahmen',
  'guide.too_dark': 'Zu dunkel: Gehen Sie an einen helleren Ort',
  'guide.glare': 'Spiegelung: Neigen Sie das Dokument vom Licht weg',
  'guide.too_far': 'Zu weit weg: Halten Sie das Dokument näher',
  'guide.too_close': 'Zu nah: Alle vier Ecken müssen im Rahmen sein',
  'guide.hold_still': 'Bitte still halten',
  'guide.ready': 'Gut: so halten',
  'selfie.hint':
    'Halten Sie das Telefon bei gutem Licht auf Augenhöhe. Wenn Sie auf die Schaltfläche tippen, bitten wir um eine kleine Bewegung und nehmen einige Bilder auf.',
  'selfie.take': 'Selfie aufnehmen',
  'selfie.recording': 'Aufnahme läuft…',
  'selfie.getReady': 'Machen Sie sich bereit…',
  'selfie.tooDark':
    'Ihr Gesicht ist zu dunkel. Schalten Sie ein Licht ein oder stellen Sie sich vor ein Fenster und versuchen Sie es erneut.',
  'selfie.noCamera':
    'Für das Selfie brauchen wir Ihre Kamera. Erlauben Sie den Kamerazugriff in den Browsereinstellungen und laden Sie diese Seite neu.',
  'location.hintGeofence': 'Wir prüfen, ob Sie dort sind, wo diese Verifizierung Sie erwartet.',
  'location.hint': 'Wir speichern, wo diese Verifizierung stattgefunden hat.',
  'location.share': 'Meinen Standort teilen',
  'location.locating': 'Standort wird ermittelt…',
  'licence.state': 'Bundesstaat',
  'licence.chooseState': 'Bundesstaat wählen',
  'licence.board': 'Zulassungsbehörde',
  'licence.chooseBoard': 'Behörde wählen',
  'licence.chooseStateFirst': 'Zuerst den Bundesstaat wählen',
  'licence.first': 'Vorname',
  'licence.last': 'Nachname',
  'licence.number': 'Zulassungsnummer',
  'licence.check': 'Meine Zulassung prüfen',
  'licence.missing': 'Geben Sie Bundesstaat, Behörde, Ihren Namen und die Zulassungsnummer an.',
  'start.keptOneDay':
    'Wir bewahren die Fotos Ihres Dokuments und Ihres Selfies auf, solange Ihre Verifizierung geprüft wird, und 1 Tag nach der Entscheidung, damit die Personen bei {project}, die Verifizierungen prüfen, sie ansehen können. Danach werden sie gelöscht.',
  'start.keptNone':
    'Ihre Fotos werden für diese Prüfungen verwendet und gelöscht, sobald die Entscheidung gefallen ist; danach sieht sie niemand.',
  'start.shared':
    '{project} erhält das Ergebnis und die aus Ihrem Dokument gelesenen Angaben (etwa Name, Geburtsdatum und Dokumentnummer).',
  'test.banner': 'Testmodus',
  'test.hint':
    'Diese Sitzung wurde mit einem Testschlüssel erstellt: Sie verifiziert niemanden. Wählen Sie hier ihr Ergebnis oder gehen Sie die Schritte durch, um die echten Prüfungen auszuführen (jedes Dokument und jedes Selfie zählt zum täglichen Testkontingent).',
  'test.picker': 'Testergebnis',
  'test.approve': 'Genehmigen',
  'test.decline': 'Ablehnen',
  'test.review': 'Zur Prüfung senden',
  'test.error': 'Zu liefernder Fehler',
  'test.answerError': 'Mit diesem Fehler antworten',
  'retry.selfie.spoof':
    'Wir konnten nicht bestätigen, dass eine echte Person vor der Kamera ist. Halten Sie das Telefon bei gutem Licht auf Augenhöhe, nur Ihr Gesicht im Bild, und führen Sie die Bewegung in einem Zug aus.',
  'retry.selfie.gesture_not_performed':
    'Wir haben die verlangte Bewegung nicht gesehen. Lesen Sie die Anweisung und führen Sie sie langsam aus, während die Bilder aufgenommen werden.',
  'retry.selfie.different_people':
    'Wir haben mehr als eine Person gesehen. Achten Sie darauf, dass nur Sie vor der Kamera sind.',
  'retry.selfie.face_mismatch':
    'Dieses Gesicht passt nicht zu dem, das wir für Sie gespeichert haben. Nehmen Sie das Selfie selbst auf, mit Blick in die Kamera.',
  'retry.selfie.other':
    'Wir konnten Ihr Selfie nicht bestätigen. Schauen Sie bei gutem Licht in die Kamera und versuchen Sie es erneut.',
  'error.rate_limited': 'Zu viele Versuche in kurzer Zeit. Warten Sie eine Minute und versuchen Sie es dann erneut.',
  'error.not_found': 'Dieser Schritt gehört nicht zu dieser Verifizierung. Laden Sie die Seite neu.',
  'error.conflict': 'Dieser Schritt ist bereits erledigt. Laden Sie die Seite neu, um fortzufahren.',
  'error.validation_error': 'In dem, was bei uns ankam, fehlte etwas. Versuchen Sie es erneut.',
  'error.unsupported_media_type':
    'Wir konnten nicht lesen, was Ihr Browser gesendet hat. Laden Sie die Seite neu und versuchen Sie es erneut.',
  'error.no_images_provided': 'Fügen Sie ein Foto Ihres Dokuments hinzu.',
  'error.invalid_frames':
    'Das Selfie wurde nicht in einem Zug aufgenommen. Tippen Sie auf die Schaltfläche und halten Sie das Telefon still, bis es fertig ist.',
  'error.too_many_frames':
    'Das Selfie wurde nicht in einem Zug aufgenommen. Tippen Sie auf die Schaltfläche und halten Sie das Telefon still, bis es fertig ist.',
  'error.invalid_challenge': 'Das hat zu lange gedauert. Tippen Sie auf die Schaltfläche und versuchen Sie es erneut.',
  'error.engine_unreachable':
    'Unsere Prüfungen sind gerade ausgelastet. Warten Sie einen Moment und versuchen Sie es erneut.',
  'error.internal_error': 'Bei uns ist etwas schiefgelaufen. Versuchen Sie es gleich noch einmal.',
  'error.payload_too_large': 'Das Foto ist zu groß. Versuchen Sie es mit einem kleineren.',
  'document.shutter': 'Foto aufnehmen',
  'guide.orShoot': 'Wenn es so bleibt, nehmen Sie das Foto mit der Schaltfläche auf.',
  'camera.opening': 'Kamera wird geöffnet…',
  'phone.copy': 'Link kopieren',
  'phone.copied': 'Link kopiert. Öffnen Sie ihn auf Ihrem Telefon.',
  'phone.link': 'Link zum Fortfahren auf dem Telefon',
  'progress.item': 'Schritt {n} von {total}: {title} ({state})',
  'progress.passed': 'erledigt',
  'progress.failed': 'nicht bestätigt',
  'progress.review': 'an eine Person weitergegeben',
  'progress.not_run': 'nicht durchgeführt',
  'progress.current': 'aktueller Schritt',
  'progress.todo': 'offen',
  'end.steps': 'Ihre Schritte',
  'end.next.DECLINED':
    'Wie geht es weiter: {project} hat das Ergebnis erhalten. Wenn Sie glauben, dass es ein Fehler ist, oder es erneut versuchen möchten, wenden Sie sich an {project}.',
  'end.next.IN_REVIEW': '{project} teilt Ihnen das Ergebnis mit, sobald eine Person es geprüft hat.',
  'end.support': '{project} kontaktieren',
};

export type Language = (typeof HOSTED_PAGE_LANGUAGES)[number];
export const CATALOGS: Record<Language, Catalog> = { en, es, fr, de };
export const LANGUAGES: readonly Language[] = HOSTED_PAGE_LANGUAGES;
/** Each language by its own name, for the switcher. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', es: 'Español', fr: 'Français', de: 'Deutsch' };

const LANGUAGE_KEY = 'verity-language';
const isLanguage = (value: string | null | undefined): value is Language => Boolean(value && value in CATALOGS);

/** The page's language: the person's choice in this tab, else the one the server wrote in <html lang>. */
export function initialLanguage(): Language {
  const chosen = sessionStorage.getItem(LANGUAGE_KEY);
  if (isLanguage(chosen)) return chosen;
  const served = document.documentElement.lang;
  return isLanguage(served) ? served : 'en';
}

/** Remembers a switch for this tab and tells assistive technology the page's new language. */
export function rememberLanguage(language: Language): void {
  sessionStorage.setItem(LANGUAGE_KEY, language);
  document.documentElement.lang = language;
}

/** A message with its `{name}` placeholders filled in. */
export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;
export const translator =
  (language: Language): Translate =>
  (key, values = {}) =>
    CATALOGS[language][key].replace(/\{(\w+)\}/g, (whole, name: string) =>
      name in values ? String(values[name]) : whole,
    );
export const I18n = createContext<Translate>(translator('en'));
export const useT = () => useContext(I18n);
