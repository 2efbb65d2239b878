import { Injectable } from '@nestjs/common'

/** A stand-in for a payment provider client: an ordinary Nest provider the worker gets injected. */
@Injectable()
export class PaymentsService {
  private readonly workMs = Number(process.env.WORK_DURATION_MS ?? 0)

  /** "Charges" the card; takes WORK_DURATION_MS (default 0) and stops early when `signal` aborts. */
  async charge(orderId: string, amount: number, signal: AbortSignal): Promise<string> {
    if (this.workMs > 0) {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, this.workMs)
        signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true })
      })
    }
    return `receipt-${orderId}-${amount.toFixed(2)}`
  }
}
