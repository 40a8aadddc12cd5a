#ifndef AI_FABRIC_FABRIC_PCAP_HELPER_H
#define AI_FABRIC_FABRIC_PCAP_HELPER_H

#include "ns3/fabric-network-helper.h"
#include "ns3/pcap-file-wrapper.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Writes one PCAP file per port of the nodes asked for, switches' as well as hosts'.
 *
 * A port's file holds every frame it sends (its Tx trace) and receives (Rx), as Ethernet
 * (DLT_EN10MB: 802.1Q, RoCEv2 and PFC frames decode in Wireshark) with nanosecond timestamps
 * (a 4 KiB frame lasts 82 ns at 400G), each frame cut to the snap length.  The file of the port
 * of node A on the cable to node B is \<prefix\>A-B.pcap (names as in the topology), with
 * "-p<port>" added when two cables join the same pair.  A port of another MPI rank is skipped.
 */
class FabricPcapHelper
{
  public:
    /** The snap length unless set: libpcap's default, every byte of any fabric frame. */
    static constexpr uint32_t kDefaultSnapLength = 65535;
    /** Bytes kept of each frame (libpcap's snaplen); at least 1. */
    void SetSnapLength(uint32_t bytes);
    /**
     * Capture every port of topology node \p node of \p network into files starting with
     * \p prefix (a folder must end in '/').  Returns the number of files opened; throws
     * std::invalid_argument for an unknown node or a file it cannot write.
     */
    uint32_t EnablePcap(const std::string& prefix, Ptr<FabricNetwork> network, uint32_t node);
    /** Flush and close every file opened (after the run: later frames are not written). */
    void Close();

  private:
    uint32_t m_snapLength{kDefaultSnapLength};
    std::vector<Ptr<PcapFileWrapper>> m_files;
};

} // namespace ns3

#endif
