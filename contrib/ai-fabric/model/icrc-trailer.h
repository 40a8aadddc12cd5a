#ifndef AI_FABRIC_ICRC_TRAILER_H
#define AI_FABRIC_ICRC_TRAILER_H

#include "ns3/trailer.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief RoCEv2 invariant CRC (4 bytes) that ends the transport payload (IBA annex A17.3.3).
 *
 * The value is carried but not computed: the simulator models corruption as an event of the
 * link, not by checking CRCs, and computing a CRC32 per frame would cost the hot path for nothing.
 */
class IcrcTrailer : public Trailer
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override { return 4; }
    void Serialize(Buffer::Iterator end) const override;
    uint32_t Deserialize(Buffer::Iterator end) override;

  private:
    uint32_t m_icrc{0};
};

} // namespace ns3

#endif
