"""placeholder"""
class CertifiedNB: pass
