import { useEffect, useRef } from 'react';

interface Detector {
  detect(source: HTMLVideoElement): Promise<{ rawValue: string }[]>;
}
type DetectorCtor = new (opts: { formats: string[] }) => Detector;

/** Whether this browser can scan QR codes with the camera (BarcodeDetector and getUserMedia). */
export function canScanCodes(): boolean {
  return (
    typeof window !== 'undefined' &&
    'BarcodeDetector' in window &&
    typeof navigator.mediaDevices?.getUserMedia === 'function'
  );
}

/**
 * The camera view while scanning: asks for the camera only when mounted (after the employee tapped 扫码), reads QR
 * codes with the browser's BarcodeDetector a few times a second, and releases the camera when unmounted.
 */
export function CodeScanner(props: {
  onDetected: (value: string) => void;
  onFailed: (message: string) => void;
  onCancel: () => void;
}) {
  const video = useRef<HTMLVideoElement>(null);
  const cb = useRef(props);
  cb.current = props;
  useEffect(() => {
    let stream: MediaStream | undefined;
    let timer: ReturnType<typeof setInterval> | undefined;
    let stopped = false;
    const Ctor = (window as unknown as { BarcodeDetector: DetectorCtor }).BarcodeDetector;
    navigator.mediaDevices
      .getUserMedia({ video: { facingMode: 'environment' }, audio: false })
      .then(async (s) => {
        stream = s;
        if (stopped || !video.current) return;
        video.current.srcObject = s;
        await video.current.play();
        const detector = new Ctor({ formats: ['qr_code'] });
        timer = setInterval(() => {
          if (!video.current || stopped) return;
          detector
            .detect(video.current)
            .then((codes) => {
              const value = codes[0]?.rawValue;
              if (value && !stopped) {
                stopped = true;
                cb.current.onDetected(value);
              }
            })
            .catch(() => undefined);
        }, 300);
      })
      .catch(() => cb.current.onFailed('无法打开摄像头，请允许使用摄像头或直接输入会员码'));
    return () => {
      stopped = true;
      if (timer) clearInterval(timer);
      stream?.getTracks().forEach((t) => t.stop());
    };
  }, []);
  return (
    <div className="space-y-2">
      <video
        ref={video}
        className="aspect-square w-full rounded-box bg-black object-cover"
        muted
        playsInline
      />
      <button type="button" className="btn btn-block" onClick={() => props.onCancel()}>
        取消扫码
      </button>
    </div>
  );
}
